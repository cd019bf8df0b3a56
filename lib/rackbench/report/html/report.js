/* rackbench HTML report: draws the charts described in #rackbench-data with
   Chart.js. Each point is a cell's median; whiskers show its interval (95%
   t-interval of the repetitions, or a min-max range where the data says so).
   For checks by a headless browser it marks each chart's <figure> with
   data-points="N" (points drawn) and <body> with data-report="ready", or with
   data-errors="N" and data-error-messages when anything failed. Text from the
   data is only ever drawn on canvas, never parsed as HTML. */
(function () {
  'use strict';

  var errors = [];
  function fail(message) {
    errors.push(String(message));
    document.body.setAttribute('data-errors', String(errors.length));
    document.body.setAttribute('data-error-messages', errors.join(' | '));
  }
  window.addEventListener('error', function (e) { fail(e.message); });
  window.addEventListener('securitypolicyviolation', function (e) {
    fail('blocked by the page\'s Content-Security-Policy: ' + e.violatedDirective + ' ' + e.blockedURI);
  });
  var consoleError = console.error;
  console.error = function () {
    fail(Array.prototype.join.call(arguments, ' '));
    consoleError.apply(console, arguments);
  };

  function fmt(v) {
    if (v == null || !isFinite(v)) return '–';
    var a = Math.abs(v);
    var digits = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }

  // Axis labels: no trailing zeros (20, 0.5, 5,000).
  function tick(v) {
    return Number(v).toLocaleString('en-US', { maximumFractionDigits: Math.abs(v) >= 10 ? 0 : 2 });
  }

  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }

  function tooltipLines(ctx, unit) {
    var p = ctx.dataset.points[ctx.dataIndex];
    if (!p) return '';
    var lines = [ctx.dataset.label + ': ' + fmt(p.y) + ' ' + unit + (p.n > 1 ? '  (median of ' + p.n + ')' : '')];
    if (p.lo != null && p.hi != null && p.n > 1) {
      var detail = p.kind === 'range' ? '' : '  (t-interval on the mean, ' + fmt(p.mean) + ')';
      lines.push('   ' + p.kind + ': ' + fmt(p.lo) + ' – ' + fmt(p.hi) + ' ' + unit + detail);
    } else {
      lines.push('   one repetition: no interval');
    }
    if (p.errors > 0) lines.push('   ' + p.errors + ' request errors');
    return lines;
  }

  // Draws each point's interval as a whisker with caps, clipped to the plot area.
  var whiskers = {
    id: 'rackbenchWhiskers',
    afterDatasetsDraw: function (chart) {
      var spec = chart.options.rackbench;
      if (!spec || spec.stacked) return;
      var horizontal = spec.horizontal;
      var scale = horizontal ? chart.scales.x : chart.scales.y;
      var ctx = chart.ctx;
      var area = chart.chartArea;
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      ctx.strokeStyle = 'rgba(29,36,48,0.6)';
      ctx.lineWidth = 1.5;
      chart.data.datasets.forEach(function (ds, i) {
        if (!chart.isDatasetVisible(i)) return;
        chart.getDatasetMeta(i).data.forEach(function (el, j) {
          var p = ds.points[j];
          if (!p || p.lo == null || p.hi == null || p.n < 2) return;
          var a = scale.getPixelForValue(Math.max(p.lo, scale.min));
          var b = scale.getPixelForValue(Math.min(p.hi, scale.max));
          var c = horizontal ? el.y : el.x;
          ctx.beginPath();
          if (horizontal) {
            ctx.moveTo(a, c); ctx.lineTo(b, c);
            ctx.moveTo(a, c - 4); ctx.lineTo(a, c + 4); ctx.moveTo(b, c - 4); ctx.lineTo(b, c + 4);
          } else {
            ctx.moveTo(c, a); ctx.lineTo(c, b);
            ctx.moveTo(c - 4, a); ctx.lineTo(c + 4, a); ctx.moveTo(c - 4, b); ctx.lineTo(c + 4, b);
          }
          ctx.stroke();
        });
      });
      ctx.restore();
    }
  };

  function dataset(spec, s) {
    var d = {
      label: s.label,
      data: s.points.map(function (p) { return p ? p.y : null; }),
      points: s.points,
      borderColor: s.color,
      backgroundColor: spec.type === 'bar' ? alpha(s.color, 0.85) : s.color
    };
    if (spec.type === 'line') {
      d.borderWidth = 2.5;
      d.borderDash = s.dash ? [6, 4] : [];
      d.pointStyle = s.dash ? 'triangle' : 'circle';
      d.pointRadius = 4;
      d.pointHoverRadius = 6;
      d.spanGaps = true;
    } else {
      d.borderWidth = 0;
      d.borderRadius = 3;
    }
    return d;
  }

  function options(spec) {
    var value = {
      type: spec.log ? 'logarithmic' : 'linear',
      beginAtZero: !spec.log,
      stacked: spec.stacked,
      title: { display: true, text: spec.unit + (spec.log ? ' (log scale)' : '') },
      grid: { color: '#eef1f5' }
    };
    if (spec.log) {
      value.min = spec.log_min;
      // Label only 1, 2 and 5 of each decade, so a log axis stays readable.
      value.ticks = { autoSkip: false, callback: function (v) {
        var m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
        return [1, 2, 5].some(function (k) { return Math.abs(m - k) < 1e-6; }) ? tick(v) : '';
      } };
    } else {
      value.ticks = { callback: function (v) { return tick(v); } };
    }
    var category = {
      offset: true, // keeps the first and last points (and their whiskers) off the plot's edge
      stacked: spec.stacked,
      grid: { display: false },
      title: { display: spec.type === 'line', text: 'concurrency (open connections)' }
    };
    return {
      rackbench: spec,
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      indexAxis: spec.horizontal ? 'y' : 'x',
      interaction: { mode: spec.type === 'line' ? 'index' : 'nearest', intersect: false },
      scales: spec.horizontal ? { x: value, y: category } : { x: category, y: value },
      plugins: {
        legend: { position: 'bottom', labels: { usePointStyle: true, boxWidth: 8, padding: 14 } },
        tooltip: { callbacks: { label: function (ctx) { return tooltipLines(ctx, spec.unit); } } }
      }
    };
  }

  function draw(spec) {
    var canvas = document.getElementById('chart-' + spec.id);
    if (!canvas) return fail('no canvas for chart ' + spec.id);
    new Chart(canvas, {
      type: spec.type,
      data: { labels: spec.labels, datasets: spec.datasets.map(function (s) { return dataset(spec, s); }) },
      options: options(spec),
      plugins: [whiskers]
    });
    var points = spec.datasets.reduce(function (sum, s) {
      return sum + s.points.filter(function (p) { return p && p.y != null; }).length;
    }, 0);
    canvas.closest('figure').setAttribute('data-points', String(points));
  }

  try {
    if (typeof Chart === 'undefined') throw new Error('Chart.js did not load');
    Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
    Chart.defaults.color = '#5d6878';
    var data = JSON.parse(document.getElementById('rackbench-data').textContent);
    data.charts.forEach(function (spec) {
      try { draw(spec); } catch (e) { fail('chart ' + spec.id + ': ' + e.message); }
    });
    document.body.setAttribute('data-charts', String(data.charts.length));
    if (errors.length === 0) document.body.setAttribute('data-report', 'ready');
  } catch (e) {
    fail(e.message);
  }
})();
