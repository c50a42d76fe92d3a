// failref: small progressive enhancements; every page works without this file.
"use strict";

function addCopyButtons() {
  for (const pre of document.querySelectorAll("pre.copyable, .checks pre, .check-hints pre, .message pre")) {
    if (pre.querySelector("button.copy")) continue;
    pre.classList.add("copyable");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy to clipboard");
    button.addEventListener("click", async () => {
      const text = pre.querySelector("code")?.textContent ?? pre.textContent;
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = "Copied";
      } catch {
        button.textContent = "Select and copy";
      }
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
    pre.appendChild(button);
  }
}

function enhancePasteForm() {
  const form = document.querySelector("form.paste");
  if (!form) return;
  const box = form.elements.namedItem("log");
  const button = form.querySelector("button[type=submit]");
  form.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", (event) => {
    const over = overLimit(form);
    showOverLimit(form, over);
    if (over) {
      event.preventDefault();
      return;
    }
    if (!button) return;
    button.disabled = true;
    button.textContent = "Matching…";
  });
  // Back and forward restore the page from cache with the button still busy.
  window.addEventListener("pageshow", () => {
    if (!button) return;
    button.disabled = false;
    button.textContent = "Find references";
  });
  for (const link of document.querySelectorAll("a[data-example]")) {
    link.addEventListener("click", (event) => {
      if (!box) return;
      event.preventDefault();
      box.value = link.dataset.example;
      box.focus();
      box.scrollIntoView({ block: "center" });
    });
  }
}

// The form's limits, checked before a paste is sent: an over-limit log is refused here at
// once, rather than by the server after an upload of many megabytes. The server counts the
// same way (lines split on newlines, a last empty one not counted; the body as sent).
function overLimit(form) {
  const text = form.elements.namedItem("log")?.value ?? "";
  const maxLines = Number(form.dataset.maxLines);
  const maxBytes = Number(form.dataset.maxBytes);
  const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (maxLines && lines > maxLines) {
    return `This paste has ${lines.toLocaleString("en")} lines, over the ${maxLines.toLocaleString("en")}-line limit, so it was not sent.`;
  }
  // A form sends its text URL-encoded, each newline as CR LF ("%0D%0A").
  const newlines = text.length - text.replaceAll("\n", "").length;
  const bytes = new URLSearchParams(new FormData(form)).toString().length + 3 * newlines;
  if (maxBytes && bytes > maxBytes) {
    return `This paste is ${bytes.toLocaleString("en")} bytes as the form sends it, over the ${maxBytes.toLocaleString("en")}-byte limit, so it was not sent.`;
  }
  return null;
}

function showOverLimit(form, message) {
  const alert = form.querySelector("#paste-over");
  const limits = form.querySelector("#paste-limits");
  const box = form.elements.namedItem("log");
  if (!alert || !limits || !box) return;
  alert.hidden = !message;
  alert.textContent = message ?? "";
  if (message) {
    limits.hidden = false;
    box.setAttribute("aria-invalid", "true");
    alert.scrollIntoView({ block: "center" });
  }
}

// "Did this help?" and "this was it" are sent in place, so the results stay on screen.
function sendFeedbackInPlace() {
  for (const form of document.querySelectorAll("form.feedback, form.outcome")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = new URLSearchParams(new FormData(form));
      if (event.submitter?.name) body.set(event.submitter.name, event.submitter.value);
      try {
        const response = await fetch(form.action, {
          method: "POST",
          body,
          headers: { "X-Requested-With": "fetch" },
        });
        form.textContent = response.ok ? "Thanks: your answer was counted." : "Could not send that; try again later.";
      } catch {
        form.textContent = "Could not send that; try again later.";
      }
      form.setAttribute("role", "status");
    });
  }
}

// A re-ranking link carries only the checks that were run: "not run" choices are left out.
// A check chosen stands out before the form is sent, as it does after.
function trimCheckMarks() {
  for (const form of document.querySelectorAll("form.check-marks")) {
    form.addEventListener("submit", () => {
      for (const select of form.querySelectorAll("select")) {
        if (select.value === "") select.disabled = true;
      }
    });
    form.addEventListener("change", (event) => {
      const select = event.target;
      if (select instanceof HTMLSelectElement) {
        select.closest("label.check-mark")?.classList.toggle("marked", select.value !== "");
      }
    });
  }
  // Back and forward restore the page from cache with those still disabled.
  window.addEventListener("pageshow", () => {
    for (const select of document.querySelectorAll("form.check-marks select:disabled")) {
      select.disabled = false;
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  addCopyButtons();
  enhancePasteForm();
  sendFeedbackInPlace();
  trimCheckMarks();
});
