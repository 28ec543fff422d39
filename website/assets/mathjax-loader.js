/* The maths of the lesson pages, typeset offline by MathJax 3 from the site's own copy.

   mkdocs-jupyter's lesson template loads one script for the maths (this one) and then calls
   MathJax 2's MathJax.Hub.Config and MathJax.Hub.Queue. MathJax 3 has no Hub, so this script
   gives the template those two calls (they do nothing: MathJax 3 typesets the page by itself
   once loaded), configures MathJax 3 with the same delimiters, and loads it. */
(function () {
  var here = document.currentScript.src;
  window.MathJax = {
    tex: {
      inlineMath: [["$", "$"], ["\\(", "\\)"]],
      displayMath: [["$$", "$$"], ["\\[", "\\]"]],
      processEscapes: true,
      processEnvironments: true,
      tags: "ams"
    },
    Hub: { Config: function () {}, Queue: function () {} }
  };
  var script = document.createElement("script");
  script.src = new URL("mathjax/tex-mml-chtml.js", here).href;
  script.async = true;
  document.head.appendChild(script);
})();
