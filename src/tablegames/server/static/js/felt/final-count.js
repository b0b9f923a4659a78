// Final Count's felt: one bet per seat; each seat's third card (face down until turned, R-FC-2) set apart.

export default {
  spots: [{ key: "main", wager: "main", label: "BET", kind: "main" }],
  handCardClass: (i) => (i === 2 ? "third" : ""),
  outLabel: "ODD TOTAL",
};
