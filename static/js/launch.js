// The launch form shows only the chosen target's backends: C compilers for
// a C target, kotlinc frontends for Kotlin, none for a Python function
// target. Hidden choices are disabled too, so they are never submitted.
(function () {
  "use strict";
  const target = document.getElementById("id_target");
  const backends = document.getElementById("id_backends");
  const reference = document.getElementById("id_reference");
  const diversity = document.getElementById("id_diversity");
  if (!target || !backends || !reference || !diversity) return;

  function show() {
    const option = target.options[target.selectedIndex];
    const language = option ? option.dataset.language || "" : "";
    for (const input of backends.querySelectorAll("input[type=checkbox]")) {
      const mine = input.dataset.language === language;
      input.closest("div").hidden = !mine;
      input.disabled = !mine;
    }
    for (const choice of reference.options) {
      if (!choice.value) continue; // "the majority"
      const mine = choice.dataset.language === language;
      choice.hidden = !mine;
      choice.disabled = !mine;
      if (!mine && choice.selected) reference.value = "";
    }
    // The two fields' own wrappers (as_div): gone for a non-differential target.
    backends.parentElement.hidden = !language;
    reference.parentElement.hidden = !language;
    // Diversity mode: for generators that count their constructs (not Csmith).
    const diverse = option && option.dataset.diversity === "1";
    diversity.parentElement.hidden = !diverse;
    diversity.disabled = !diverse;
  }

  target.addEventListener("change", show);
  show();
  document.getElementById("launch-form").dataset.ready = "1"; // for tests: the handler is in place
})();
