// The bucket list's "select all" box for bulk actions.
"use strict";
document.getElementById("select-all")?.addEventListener("change", (event) => {
  for (const box of document.querySelectorAll("#bucket-table input[name=buckets]")) box.checked = event.target.checked;
});
