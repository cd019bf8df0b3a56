/* What each chart of a rackbench report drew, read from its canvas pixels
   (HeadlessChromium#charts_drawn). The report forbids any script but its own
   (its Content-Security-Policy), so this runs in a probe page that holds the
   report in an iframe; Chromium lets one file page read another's DOM only
   with --allow-file-access-from-files.

   Per chart (<figure data-chart="ID">): data-points (written by report.js),
   the canvas size, and per dataset, inside the plot area only (Chart.js's
   chartArea: no legend, no axes), the pixels of the dataset's own colour
   (RGB within 12 in sum, alpha at least 128; bars are drawn at alpha 0.85)
   and their mean height (0 = the plot's top) in its left and right halves.
   The result goes into <pre id="probe"> as JSON, for --dump-dom. */
(function () {
  'use strict';

  function rgb(color) {
    var hex = /^#([0-9a-f]{6})$/i.exec(color);
    if (hex) { var n = parseInt(hex[1], 16); return [n >> 16, (n >> 8) & 255, n & 255]; }
    var rgba = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(color);
    return rgba ? [+rgba[1], +rgba[2], +rgba[3]] : null;
  }

  function series(chart, canvas) {
    var ratio = chart.currentDevicePixelRatio || 1;
    var area = chart.chartArea;
    var x0 = Math.ceil(area.left * ratio), y0 = Math.ceil(area.top * ratio);
    var w = Math.floor((area.right - area.left) * ratio), h = Math.floor((area.bottom - area.top) * ratio);
    var px = canvas.getContext('2d').getImageData(x0, y0, w, h).data;
    var bar = chart.config.type === 'bar';
    var out = {};
    chart.data.datasets.forEach(function (ds) {
      var want = rgb(bar ? ds.backgroundColor : ds.borderColor);
      var s = { pixels: 0, left: [0, 0], right: [0, 0] };
      for (var i = 0; want && i < px.length; i += 4) {
        if (px[i + 3] < 128) continue;
        if (Math.abs(px[i] - want[0]) + Math.abs(px[i + 1] - want[1]) + Math.abs(px[i + 2] - want[2]) > 12) continue;
        var x = (i / 4) % w, y = Math.floor(i / 4 / w);
        var half = x < w / 2 ? s.left : s.right;
        s.pixels++; half[0]++; half[1] += y;
      }
      out[ds.label] = { pixels: s.pixels, left_y: s.left[0] ? s.left[1] / s.left[0] : null,
                        right_y: s.right[0] ? s.right[1] / s.right[0] : null };
    });
    return { width: w, height: h, series: out };
  }

  var frame = document.getElementById('report');
  frame.addEventListener('load', function () {
    var out = { charts: {} };
    try {
      var win = frame.contentWindow, doc = frame.contentDocument;
      out.report = doc.body.getAttribute('data-report');
      out.errors = doc.body.getAttribute('data-error-messages');
      doc.querySelectorAll('figure.chart').forEach(function (figure) {
        var canvas = figure.querySelector('canvas');
        var chart = win.Chart && canvas ? win.Chart.getChart(canvas) : null;
        var entry = { points: figure.getAttribute('data-points'), canvas: canvas ? [canvas.width, canvas.height] : null };
        if (chart) entry.plot = series(chart, canvas);
        out.charts[figure.getAttribute('data-chart')] = entry;
      });
    } catch (e) {
      out.error = String(e);
    }
    document.getElementById('probe').textContent = JSON.stringify(out);
  });
})();
