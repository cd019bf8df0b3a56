/* rackbench HTML report: draws the charts described in #rackbench-data with
   Chart.js. Each point is a cell's median; whiskers show its interval (95%
   t-interval of the repetitions, or a min-max range where the data says so).
   Capacity charts (spec.xy) put points at numeric x (offered req/s or
   connections): a filled circle where the level met the SLO, a cross where
   it failed, and a dashed line at the SLO's p99 objective (spec.slo).
   For checks by a headless browser it marks each chart's <figure> with
   data-points="N" (points drawn), a capacity chart's also with data-slo="MS"
   once its objective line is on the plot, and <body> with data-report="ready", or with
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
    if (p.invalid) lines.push('   ? ' + p.invalid);
    if (p.foreign) lines.push('   ~ measured under foreign load');
    return lines;
  }

  function capacityTitle(items, spec) {
    var p = items.length ? items[0].dataset.points[items[0].dataIndex] : null;
    if (!p) return '';
    var level = Number(p.x).toLocaleString('en-US', { maximumFractionDigits: 2 });
    return spec.loop === 'open' ? level + ' req/s offered' : level + ' connections';
  }

  function capacityLines(ctx) {
    var p = ctx.dataset.points[ctx.dataIndex];
    if (!p) return '';
    var lines = [ctx.dataset.label + ': p99 ' + fmt(p.y) + ' ms' + (p.n > 1 ? '  (median of ' + p.n + ' trials)' : '')];
    if (p.rps != null) lines.push('   achieved ' + fmt(p.rps) + ' req/s');
    if (p.trials && p.n > 1) {
      var met = p.trials.filter(function (t) { return t.pass; }).length;
      lines.push('   ' + (p.pass ? 'meets' : 'fails') + ' the SLO: ' + met + ' of ' + p.n + ' trials met it');
      p.trials.forEach(function (t, i) { lines.push('     trial ' + (i + 1) + ': ' + (t.reason || 'p99 ' + fmt(t.p99) + ' ms')); });
    } else {
      lines.push('   ' + (p.pass ? 'meets' : 'fails') + ' the SLO: ' + p.reason);
    }
    if (p.errors > 0) lines.push('   ' + p.errors + ' request errors');
    return lines;
  }

  // A capacity chart's SLO: a dashed line at the p99 objective under the
  // series, and its label over them, on a light box, at the first of the
  // line's four corners (left/right, above/below) that no curve runs through.
  function objectiveY(chart) {
    var spec = chart.options.rackbench;
    if (!spec || !spec.slo) return null;
    var y = chart.scales.y.getPixelForValue(spec.slo.y);
    var area = chart.chartArea;
    return isFinite(y) && y >= area.top && y <= area.bottom ? y : null;
  }

  // Whether a drawn point or a stretch of line between two falls in the box
  // (with a few pixels' margin); lines are sampled along their length.
  function crossed(chart, box) {
    var m = 6;
    function inside(x, y) { return x >= box.x - m && x <= box.x + box.w + m && y >= box.y - m && y <= box.y + box.h + m; }
    return chart.data.datasets.some(function (ds, i) {
      if (!chart.isDatasetVisible(i)) return false;
      var els = chart.getDatasetMeta(i).data;
      return els.some(function (el, j) {
        if (inside(el.x, el.y)) return true;
        var next = els[j + 1];
        if (!next) return false;
        for (var k = 1; k < 20; k++) {
          if (inside(el.x + (next.x - el.x) * k / 20, el.y + (next.y - el.y) * k / 20)) return true;
        }
        return false;
      });
    });
  }

  var objective = {
    id: 'rackbenchObjective',
    beforeDatasetsDraw: function (chart) {
      var y = objectiveY(chart);
      if (y == null) return;
      var area = chart.chartArea;
      var ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = '#b42318';
      ctx.lineWidth = 1.5;
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      ctx.moveTo(area.left, y);
      ctx.lineTo(area.right, y);
      ctx.stroke();
      ctx.restore();
    },
    afterDatasetsDraw: function (chart) {
      var y = objectiveY(chart);
      if (y == null) return;
      var label = chart.options.rackbench.slo.label;
      var area = chart.chartArea;
      var ctx = chart.ctx;
      ctx.save();
      ctx.font = '600 12px ' + Chart.defaults.font.family;
      var w = ctx.measureText(label).width + 6;
      var boxes = [[area.left + 3, y - 17], [area.right - w - 3, y - 17], [area.left + 3, y + 3], [area.right - w - 3, y + 3]]
        .map(function (b) { return { x: b[0], y: b[1], w: w, h: 15 }; });
      var box = boxes.filter(function (b) { return !crossed(chart, b); })[0] || boxes[0];
      ctx.fillStyle = 'rgba(255,255,255,0.85)';
      ctx.fillRect(box.x, box.y, box.w, box.h);
      ctx.fillStyle = '#b42318';
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      ctx.fillText(label, box.x + 3, box.y + box.h / 2 + 1);
      ctx.restore();
    }
  };

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

  // A capacity series: one point per measured level at its numeric x;
  // a filled circle where the level met the SLO, a cross where it failed.
  function capacityDataset(s) {
    var points = s.points.filter(function (p) { return p && p.x != null && p.y != null; });
    function each(pass, fail) { return points.map(function (p) { return p.pass ? pass : fail; }); }
    return {
      label: s.label,
      data: points.map(function (p) { return { x: p.x, y: p.y }; }),
      points: points,
      borderColor: s.color,
      backgroundColor: s.color,
      borderWidth: 2,
      showLine: true,
      pointStyle: each('circle', 'crossRot'),
      pointRadius: each(4.5, 7),
      pointHoverRadius: each(6.5, 9),
      pointBorderWidth: each(1, 3)
    };
  }

  function dataset(spec, s) {
    if (spec.xy) return capacityDataset(s);
    var d = {
      label: s.label,
      data: s.points.map(function (p) { return p ? p.y : null; }),
      points: s.points,
      borderColor: s.color,
      backgroundColor: spec.type === 'bar' ? alpha(s.color, 0.85) : s.color
    };
    // A cell that is not valid (p.invalid): a hollow point on a line, a
    // faint bar, so its figure is not read as one to trust.
    function each(valid, invalid) { return s.points.map(function (p) { return p && p.invalid ? invalid : valid; }); }
    if (spec.type === 'line') {
      d.borderWidth = 2.5;
      d.borderDash = s.dash ? [6, 4] : [];
      d.pointStyle = s.dash ? 'triangle' : 'circle';
      d.pointRadius = 4;
      d.pointHoverRadius = 6;
      d.pointBackgroundColor = each(s.color, '#ffffff');
      d.spanGaps = true;
    } else {
      d.borderWidth = 0;
      d.borderRadius = 3;
      d.backgroundColor = each(alpha(s.color, 0.85), alpha(s.color, 0.25));
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
    if (spec.y_max != null) value.suggestedMax = spec.y_max; // a capacity chart: room for its top point and the SLO's label
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
    if (spec.xy) {
      category = {
        type: spec.x_log ? 'logarithmic' : 'linear',
        min: spec.x_min,
        max: spec.x_max,
        grace: spec.x_log ? 0 : '6%',
        title: { display: true, text: spec.x_title + (spec.x_log ? ' (log scale)' : '') },
        grid: { color: '#eef1f5' },
        ticks: { autoSkip: !spec.x_ticks, callback: function (v) { return tick(v); } }
      };
      // On a log axis, a tick at each measured level (1, 2, 4, 8 ... connections).
      if (spec.x_ticks) category.afterBuildTicks = function (scale) {
        scale.ticks = spec.x_ticks.map(function (v) { return { value: v }; });
      };
    }
    var legendLabels = { usePointStyle: true, boxWidth: 8, padding: 14 };
    if (spec.xy) legendLabels.pointStyle = 'circle'; // a series' mark, whatever its first level's verdict
    if (spec.type === 'line' && !spec.xy) {
      // A series' colour in the legend, filled even when its first point is hollow (a cell not valid).
      legendLabels.generateLabels = function (chart) {
        return Chart.defaults.plugins.legend.labels.generateLabels(chart).map(function (item) {
          item.fillStyle = chart.data.datasets[item.datasetIndex].borderColor;
          return item;
        });
      };
    }
    var tooltip = { callbacks: { label: function (ctx) { return tooltipLines(ctx, spec.unit); } } };
    if (spec.xy) {
      tooltip = { callbacks: { title: function (items) { return capacityTitle(items, spec); }, label: capacityLines } };
    }
    return {
      rackbench: spec,
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      indexAxis: spec.horizontal ? 'y' : 'x',
      interaction: { mode: spec.type === 'line' && !spec.xy ? 'index' : 'nearest', intersect: false },
      scales: spec.horizontal ? { x: value, y: category } : { x: category, y: value },
      plugins: {
        legend: { position: 'bottom', labels: legendLabels },
        tooltip: tooltip
      }
    };
  }

  function draw(spec) {
    var canvas = document.getElementById('chart-' + spec.id);
    if (!canvas) return fail('no canvas for chart ' + spec.id);
    var chart = new Chart(canvas, {
      type: spec.type,
      data: { labels: spec.labels, datasets: spec.datasets.map(function (s) { return dataset(spec, s); }) },
      options: options(spec),
      plugins: [whiskers, objective]
    });
    var points = spec.datasets.reduce(function (sum, s) {
      return sum + s.points.filter(function (p) { return p && p.y != null; }).length;
    }, 0);
    canvas.closest('figure').setAttribute('data-points', String(points));
    var y = chart.scales.y;
    if (spec.slo && y && spec.slo.y >= y.min && spec.slo.y <= y.max) {
      canvas.closest('figure').setAttribute('data-slo', String(spec.slo.y));
    }
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
