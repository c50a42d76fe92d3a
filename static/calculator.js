// failref: live calculator outputs. The panel is a plain GET form that works without this;
// here each change is sent to POST /api/v1/calculators/{name} and the outputs redrawn.
"use strict";

const DEBOUNCE_MS = 250;
const SIGNIFICANT_DIGITS = 4;
const MAX_DECIMALS = 6;
const MAX_LIST_ITEMS_SHOWN = 16;
const NO_VALUE = "—";

// Same rules as app/calculator_panel.py format_number: grouped digits, ~4 significant ones.
function formatNumber(value) {
  const decimals = value === 0 ? 0 : SIGNIFICANT_DIGITS - 1 - Math.floor(Math.log10(Math.abs(value)));
  const digits = Math.min(MAX_DECIMALS, Math.max(0, decimals));
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

function formatOutput(value, percent) {
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_LIST_ITEMS_SHOWN).map(formatNumber).join(", ");
    return value.length > MAX_LIST_ITEMS_SHOWN ? `${shown}, … (${value.length} values)` : shown;
  }
  return formatNumber(percent ? value * 100 : value);
}

// The calculator's own inputs: not the hidden ones that carry the check marks along.
function readInputs(form) {
  const inputs = {};
  for (const element of form.elements) {
    if (element.name && !("carried" in element.dataset)) inputs[element.name] = element.value;
  }
  return inputs;
}

// The check-mark form of the same page carries the calculator's inputs the address holds
// (the live panel keeps them there), so re-ranking keeps the calculator as it stands.
function carryIntoCheckMarks(form) {
  const path = new URL(form.action).pathname;
  const names = Object.keys(readInputs(form));
  for (const marks of document.querySelectorAll("form.check-marks")) {
    if (new URL(marks.action).pathname !== path) continue;
    marks.addEventListener("submit", () => {
      const params = new URL(window.location.href).searchParams;
      for (const name of names) {
        marks.querySelector(`input[type=hidden][name="${CSS.escape(name)}"]`)?.remove();
        if (!params.has(name)) continue;
        const hidden = document.createElement("input");
        hidden.type = "hidden";
        hidden.name = name;
        hidden.value = params.get(name);
        hidden.dataset.carried = "";
        marks.prepend(hidden);
      }
    });
  }
}

function clearErrors(form) {
  for (const message of form.querySelectorAll("[data-error-for]")) {
    message.hidden = true;
    message.textContent = "";
    message.closest(".field")?.classList.remove("invalid", "asking");
  }
  for (const element of form.elements) element.removeAttribute("aria-invalid");
}

// The label a reader sees for an input ("Healthy bandwidth"), not its name (baseline_gbps).
function labelOf(form, name) {
  const element = form.elements.namedItem(name);
  const label = element?.id ? form.querySelector(`label[for="${CSS.escape(element.id)}"] [data-label]`) : null;
  return label ? label.textContent.trim() : null;
}

// As the server draws a wrong input: the problem beside the field, the outputs blank and
// the caption naming the field by its label.
function showError(panel, form, error) {
  const prefix = `${error.field}: `;
  const problem = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  const label = labelOf(form, error.field || "");
  const message = label ? form.querySelector(`[data-error-for="${CSS.escape(error.field)}"]`) : null;
  if (message) {
    message.textContent = problem;
    message.hidden = false;
    message.closest(".field")?.classList.add("invalid");
    form.elements.namedItem(error.field)?.setAttribute("aria-invalid", "true");
  }
  for (const output of panel.querySelectorAll("output[data-output]")) output.textContent = NO_VALUE;
  panel.querySelector(".outputs")?.classList.add("stale");
  const caption = panel.querySelector("[data-outputs-caption]");
  if (caption) caption.textContent = label ? `Outputs: fix ${label} above` : `Outputs: ${problem}`;
}

function showOutputs(panel, outputs) {
  for (const output of panel.querySelectorAll("output[data-output]")) {
    const value = outputs[output.dataset.output];
    output.textContent = value === undefined ? NO_VALUE : formatOutput(value, "percent" in output.dataset);
  }
  panel.querySelector(".outputs")?.classList.remove("stale");
  const caption = panel.querySelector("[data-outputs-caption]");
  if (caption) caption.textContent = "Outputs";
}

function liveCalculator(form) {
  const panel = form.closest(".calculator");
  let timer = 0;
  let pending = null;
  async function run() {
    const inputs = readInputs(form);
    pending?.abort();
    pending = new AbortController();
    let response;
    let body;
    try {
      response = await fetch(form.dataset.api, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(inputs),
        signal: pending.signal,
      });
      body = await response.json();
    } catch {
      return; // aborted by a newer change, or offline: the Calculate button still works
    }
    clearErrors(form);
    // The address follows the inputs, so a reload or a shared link shows the same panel;
    // the other parameters (the check marks) stay. Not on a results page, whose panel
    // submits to its reference's page.
    const url = new URL(window.location.href);
    if (new URL(form.action).pathname === url.pathname) {
      for (const [name, value] of Object.entries(inputs)) url.searchParams.set(name, value);
      window.history.replaceState(null, "", url);
    }
    if (response.ok) {
      showOutputs(panel, body.outputs);
    } else if (body.error) {
      showError(panel, form, body.error);
    }
  }
  form.addEventListener("input", (event) => {
    // A value the reader changed is theirs now, no longer the one read from the paste,
    // nor one the paste could not give.
    const field = event.target.closest(".field");
    field?.querySelector("[data-from-line]")?.remove();
    field?.querySelector("[data-ask]")?.remove();
    window.clearTimeout(timer);
    timer = window.setTimeout(run, DEBOUNCE_MS);
  });
  form.classList.add("live");
  carryIntoCheckMarks(form);
}

document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("form.calculator-form[data-api]")) liveCalculator(form);
});
