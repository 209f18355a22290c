// Loaded by tests/cli/t0355-site.sh into a copy of a site page: every text box
// of the page, after layout, must lie inside each ancestor that clips (overflow
// other than visible) and inside the page's width, and no two text boxes may
// overlap. What a closed <details> folds away is not drawn, and not checked. The verdict goes into <body data-layout>, for tests/site/dump-dom.mjs:
// "ok N text boxes at W px" or "N problems at W px: ...", W the width the page
// was laid out at (headless Chromium's --window-size once gave 500 px for 390).
(function () {
  "use strict";
  var problems = [], boxes = [], width = document.documentElement.clientWidth;
  function where(node) {
    var e = node.parentElement, path = [];
    for (var i = 0; e && i < 3; i++, e = e.parentElement)
      path.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : ""));
    return JSON.stringify(node.textContent.trim().slice(0, 40)) + " in " + path.join("<");
  }
  function clipped(rect, node) {
    if (rect.left < -1 || rect.right > width + 1)
      return "outside the page's width (" + Math.round(rect.left) + ".." + Math.round(rect.right) + " of " + width + ")";
    for (var e = node.parentElement; e && e !== document.body; e = e.parentElement) {
      var cs = getComputedStyle(e);
      if (cs.overflowX === "visible" && cs.overflowY === "visible")
        continue;
      var c = e.getBoundingClientRect();
      if (rect.left < c.left - 1 || rect.right > c.right + 1 || rect.top < c.top - 1 || rect.bottom > c.bottom + 1)
        return "clipped by its " + e.tagName.toLowerCase();
    }
    return null;
  }
  var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    var t = walker.currentNode;
    if (!t.textContent.trim() || !t.parentElement || t.parentElement.closest("[hidden], script, style, title"))
      continue;
    var fold = t.parentElement.closest("details:not([open])"); /* folded: only its summary is drawn */
    if (fold && t.parentElement.closest("summary") !== fold.querySelector("summary"))
      continue;
    var range = document.createRange();
    range.selectNodeContents(t);
    var rects = range.getClientRects();
    for (var i = 0; i < rects.length; i++) {
      var r = rects[i];
      if (r.width < 1 || r.height < 1)
        continue;
      var why = clipped(r, t);
      if (why)
        problems.push(where(t) + ": " + why);
      boxes.push({ r: r, t: t });
    }
  }
  boxes.sort(function (a, b) { return a.r.top - b.r.top; });
  for (var i = 0; i < boxes.length; i++)
    for (var j = i + 1; j < boxes.length && boxes[j].r.top < boxes[i].r.bottom - 1; j++) {
      var a = boxes[i].r, b = boxes[j].r;
      if (boxes[i].t === boxes[j].t)
        continue;
      var w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1)
        problems.push(where(boxes[i].t) + " overlaps " + where(boxes[j].t));
    }
  var at = " at " + window.innerWidth + " px"; /* the viewport, scrollbar included */
  document.body.setAttribute("data-layout", problems.length ? problems.length + " problems" + at + ": " + problems.slice(0, 10).join(" | ") : "ok " + boxes.length + " text boxes" + at);
})();
