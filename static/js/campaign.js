// Live campaign page: poll the progress endpoint while the campaign runs and
// update numbers, charts and tables in place. Every text is written with
// textContent, never innerHTML: bucket titles come from fuzzer output. Chart
// labels are our own ("shard 1"), and the data are numbers.
(function () {
  "use strict";
  const root = document.getElementById("campaign");
  if (!root) return;
  const url = root.dataset.progressUrl;
  const POLL_MS = 1000;
  const LAYOUT = {
    margin: { l: 50, r: 45, t: 36, b: 40 },
    legend: { orientation: "h" },
    font: { size: 12 },
  };
  const CONFIG = { displayModeBar: false, responsive: true };
  // Below this many, a count axis gets a tick per unit: Plotly's own ticks
  // would put 0.5 between 0 and 1, a count no campaign can have.
  const SMALL_COUNT = 10;

  function largest(arrays) {
    // A loop, not Math.max(...values): a long series would overflow the call stack.
    let top = 0;
    arrays.forEach(function (values) {
      values.forEach(function (v) { if (typeof v === "number" && v > top) top = v; });
    });
    return top;
  }

  // An axis of things counted (findings, buckets): whole numbers from zero.
  // Rates keep Plotly's decimal ticks.
  function countAxis(arrays, extra) {
    const axis = { rangemode: "tozero", tickformat: "d" };
    if (largest(arrays) < SMALL_COUNT) axis.dtick = 1;
    return Object.assign(axis, extra || {});
  }

  function setText(id, value) {
    const node = document.getElementById(id);
    if (node) node.textContent = String(value);
  }

  function row(cells, numeric) {
    const tr = document.createElement("tr");
    cells.forEach(function (value, index) {
      const td = document.createElement("td");
      if (value instanceof Node) td.appendChild(value);
      else td.textContent = value === null || value === undefined ? "" : String(value);
      if (numeric.indexOf(index) !== -1) td.className = "num";
      tr.appendChild(td);
    });
    return tr;
  }

  function renderBuckets(buckets) {
    const body = document.getElementById("buckets");
    body.replaceChildren.apply(body, buckets.map(function (bucket) {
      const link = document.createElement("a");
      link.href = bucket.url;
      link.textContent = bucket.title;
      return row(["#" + bucket.id, link, bucket.kind, bucket.status, bucket.hits], [4]);
    }));
  }

  function renderShards(shards) {
    const body = document.getElementById("shards");
    body.replaceChildren.apply(body, shards.map(function (shard) {
      const age = shard.heartbeat_age === null ? "" : shard.heartbeat_age + " s ago";
      return row([shard.index, shard.status_display, shard.worker, shard.attempts, shard.executions,
        shard.executions_per_second, shard.findings, shard.restarts, age], [3, 4, 5, 6, 7, 8]);
    }));
  }

  function renderCharts(progress) {
    const series = progress.series;
    if (!window.Plotly) return;
    const rate = [];
    const findings = [];
    Object.keys(series.shards).forEach(function (index) {
      const s = series.shards[index];
      const factor = progress.rate_factor || 1;
      rate.push({ x: s.t, y: s.rate.map(function (v) { return v * factor; }), mode: "lines", name: "shard " + index });
      findings.push({ x: s.t, y: s.findings, mode: "lines", name: "findings, shard " + index });
    });
    findings.push({ x: series.buckets.t, y: series.buckets.y, mode: "lines", name: "buckets", yaxis: "y2",
      line: { dash: "dot" } });
    Plotly.react("chart-rate", rate, Object.assign({}, LAYOUT, {
      title: { text: progress.rate_label || "Executions per second" }, xaxis: { title: { text: "seconds" } },
    }), CONFIG);
    const findingCounts = findings.filter(function (t) { return !t.yaxis; }).map(function (t) { return t.y; });
    Plotly.react("chart-findings", findings, Object.assign({}, LAYOUT, {
      title: { text: "Findings and buckets" }, xaxis: { title: { text: "seconds" } },
      yaxis: countAxis(findingCounts),
      yaxis2: countAxis([series.buckets.y], { overlaying: "y", side: "right" }),
    }), CONFIG);
  }

  function render(progress) {
    const status = document.getElementById("status");
    status.textContent = progress.status_display;
    status.className = "status status-" + progress.status;
    setText("elapsed", progress.elapsed_seconds);
    setText("executions", progress.executions);
    setText("rate", progress.rate);
    setText("findings", progress.findings);
    setText("bucket-count", progress.buckets.length);
    const error = document.getElementById("error");
    error.textContent = progress.error;
    error.hidden = !progress.error;
    renderShards(progress.shards);
    renderBuckets(progress.buckets);
    renderCharts(progress);
    if (!progress.active) {
      const stop = document.getElementById("stop-form");
      if (stop) stop.remove();
    }
  }

  async function poll() {
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.ok) {
        const progress = await response.json();
        render(progress);
        if (!progress.active) return;
      }
    } catch (error) {
      // A dropped request (server restart) is retried on the next tick.
    }
    window.setTimeout(poll, POLL_MS);
  }

  const initial = document.getElementById("initial-progress");
  if (initial) renderCharts(JSON.parse(initial.textContent));
  if (root.dataset.active === "true") window.setTimeout(poll, POLL_MS);
})();
