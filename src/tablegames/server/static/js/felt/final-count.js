// Final Count's felt: each seat's third card (face down until turned, R-FC-2) set apart. The spots come
// from GET /games.

export default {
  handCardClass: (i) => (i === 2 ? "third" : ""),
  outLabel: "ODD TOTAL",
};
