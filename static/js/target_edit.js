// The target form: add backend rows (Django's empty formset form), and show
// a trial's grid when its job is done. Everything shown comes from programs
// and compilers, so it is set as text, never as HTML.
(function () {
  "use strict";
  const add = document.getElementById("add-backend");
  const total = document.getElementById("id_backend-TOTAL_FORMS");
  const template = document.getElementById("backend-template");
  if (add && total && template) {
    add.addEventListener("click", function () {
      const index = Number(total.value);
      const html = template.innerHTML.replace(/__prefix__/g, String(index));
      const holder = document.createElement("div");
      holder.innerHTML = html; // the server's own template, no user data in it
      document.getElementById("backends").appendChild(holder.firstElementChild);
      total.value = String(index + 1);
    });
  }

  const trial = document.getElementById("trial");
  if (!trial) return;
  const state = document.getElementById("trial-state");
  const grid = document.getElementById("trial-grid");

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function details(summary, text) {
    const box = element("details");
    box.appendChild(element("summary", summary));
    box.appendChild(element("pre", text || "(empty)"));
    return box;
  }

  function render(result) {
    grid.replaceChildren();
    if (result.missing.length) {
      grid.appendChild(element("p", "Not installed on the worker: " + result.missing.join(", "), "errorlist"));
    }
    const table = element("table", undefined, "trial-grid");
    const head = element("tr");
    head.appendChild(element("th", "Program"));
    for (const name of result.backends) head.appendChild(element("th", name));
    table.appendChild(head);
    result.programs.forEach(function (program, number) {
      const row = element("tr");
      const first = element("td");
      first.appendChild(element("div", "#" + (number + 1)));
      if (program.generator_error) {
        first.appendChild(element("div", "generator failed: " + program.generator_error, "errorlist"));
      } else {
        first.appendChild(details(program.command, program.program));
      }
      row.appendChild(first);
      const byName = {};
      for (const r of program.results) byName[r.backend] = r;
      for (const name of result.backends) {
        const cell = element("td");
        const r = byName[name];
        if (r) {
          const verdict = r.verdict && r.verdict !== r.outcome ? " · " + r.verdict : "";
          cell.appendChild(element("div", r.stage + ": " + r.outcome + verdict, "outcome outcome-" + r.outcome));
          cell.appendChild(element("div", "exit " + (r.exit_status === null ? "—" : r.exit_status) +
            (r.signal ? " (" + r.signal + ")" : "") + ", " + r.seconds + " s", "hint"));
          cell.appendChild(details("stdout", r.stdout));
          cell.appendChild(details("stderr", r.stderr));
        }
        row.appendChild(cell);
      }
      table.appendChild(row);
    });
    grid.appendChild(table);
  }

  function poll() {
    fetch(trial.dataset.url, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (result) {
        if (result.state === "done") {
          state.textContent = "Done.";
          render(result);
        } else if (result.state === "failed") {
          state.textContent = result.error;
        } else {
          state.textContent = result.state === "running" ? "Running…" : "Queued (waiting for a worker)…";
          setTimeout(poll, 1000);
        }
      })
      .catch(function () { setTimeout(poll, 2000); });
  }
  poll();
})();
