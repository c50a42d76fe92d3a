// failref: small progressive enhancements; every page works without this file.
"use strict";

function addCopyButtons() {
  for (const pre of document.querySelectorAll("pre.copyable, .checks pre, .message pre")) {
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

function rememberChecks() {
  const article = document.querySelector("[data-reference]");
  if (!article) return;
  const key = "failref:checks:" + article.dataset.reference;
  let ticked = {};
  try { ticked = JSON.parse(localStorage.getItem(key) || "{}"); } catch { ticked = {}; }
  for (const box of article.querySelectorAll("input[data-check]")) {
    box.checked = Boolean(ticked[box.dataset.check]);
    box.closest("li")?.classList.toggle("done", box.checked);
    box.addEventListener("change", () => {
      ticked[box.dataset.check] = box.checked;
      box.closest("li")?.classList.toggle("done", box.checked);
      try { localStorage.setItem(key, JSON.stringify(ticked)); } catch { /* storage full or off */ }
    });
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
  form.addEventListener("submit", () => {
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

// "Did this help?" answers are sent in place, so the results stay on screen.
function sendFeedbackInPlace() {
  for (const form of document.querySelectorAll("form.feedback")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = new URLSearchParams({ helpful: event.submitter?.value ?? "yes" });
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

document.addEventListener("DOMContentLoaded", () => {
  addCopyButtons();
  rememberChecks();
  enhancePasteForm();
  sendFeedbackInPlace();
});
