// Loaded by tests/cli/t0355-site.sh into a copy of a site page opened at ...#ID: the element the
// address's fragment names, as the browser matched it (:target) once the page has loaded and
// scrolled to it, goes into <body data-target>: "ID top=N: TEXT", N its top in the viewport and
// TEXT its words, blanks squeezed; "none" when the fragment names no element.
window.addEventListener("load", function () {
  "use strict";
  setTimeout(function () {
    var t = document.querySelector(":target");
    document.body.setAttribute("data-target", t ? t.id + " top=" + Math.round(t.getBoundingClientRect().top) + ": " +
      t.textContent.replace(/\s+/g, " ").trim() : "none");
  }, 0);
});
