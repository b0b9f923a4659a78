"""The server's FastAPI routers, one file per resource."""
