// failref editor: line numbers beside the wrapped text, links that put the caret on a line,
// buttons that settle a conflict stretch, Ctrl+S, a warning before leaving unsaved text,
// and `updated:` set to today on a save that left it alone. The page works without this
// file: its links go to the numbered copy of the text below the form, and the markers can
// be edited by hand.
"use strict";

const THEIRS_MARKER = "<<<<<<< saved meanwhile";
const SPLIT_MARKER = "=======";
const YOURS_MARKER = ">>>>>>> your version";

// The text wraps; the gutter numbers each line of the file at the height its wrapped rows
// take, measured in a hidden copy of the text area's box (`lineTops` says where each
// line starts, for going to a line).
let lineTops = [0];

function measureLines(area, mirror) {
  const style = getComputedStyle(area);
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  mirror.style.width = `${area.clientWidth - padding}px`;
  const lines = area.value.split("\n");
  mirror.replaceChildren(...lines.map((line) => {
    const row = document.createElement("div");
    row.textContent = line || "\u200b";
    return row;
  }));
  const heights = Array.from(mirror.children, (row) => row.getBoundingClientRect().height);
  lineTops = [];
  let top = 0;
  for (const height of heights) {
    lineTops.push(top);
    top += height;
  }
  return heights;
}

function addGutter(area) {
  const frame = area.closest(".editor-frame");
  if (!frame) return;
  const gutter = document.createElement("div");
  gutter.className = "gutter";
  gutter.setAttribute("aria-hidden", "true");
  const mirror = document.createElement("div");
  mirror.className = "editor-mirror";
  mirror.setAttribute("aria-hidden", "true");
  let pending = false;
  const render = () => {
    pending = false;
    const heights = measureLines(area, mirror);
    gutter.replaceChildren(...heights.map((height, i) => {
      const number = document.createElement("div");
      number.textContent = String(i + 1);
      number.style.height = `${height}px`;
      return number;
    }));
    // The gutter is sized by hand (its CSS ignores its content): digits plus padding.
    gutter.style.width = `calc(${String(heights.length).length}ch + 1.1rem)`;
    gutter.scrollTop = area.scrollTop;
  };
  const later = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(render);
  };
  frame.classList.add("numbered");
  frame.prepend(gutter);
  frame.append(mirror);
  render();
  area.addEventListener("input", render);
  area.addEventListener("scroll", () => { gutter.scrollTop = area.scrollTop; });
  new ResizeObserver(later).observe(area);
}

function goToLine(area, number) {
  const lines = area.value.split("\n");
  const line = Math.min(Math.max(number, 1), lines.length);
  let start = 0;
  for (let i = 0; i < line - 1; i++) start += lines[i].length + 1;
  area.focus({ preventScroll: true });
  area.setSelectionRange(start, start + lines[line - 1].length);
  const top = lineTops[line - 1] ?? 0;
  area.scrollTop = Math.max(0, top - area.clientHeight / 3);
  area.scrollIntoView({ block: "nearest" });
  area.closest(".editor-frame")?.scrollIntoView({ block: "nearest" });
}

function linkLines(area) {
  for (const link of document.querySelectorAll("a[data-line]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      goToLine(area, Number(link.dataset.line));
    });
  }
}

// The `index`-th block of conflict markers still in the text: [first line, last line, split].
function markerBlock(lines, index) {
  let seen = -1;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== THEIRS_MARKER) continue;
    seen += 1;
    if (seen !== index) continue;
    const split = lines.indexOf(SPLIT_MARKER, i + 1);
    const end = lines.indexOf(YOURS_MARKER, split + 1);
    return split > i && end > split ? [i, end, split] : null;
  }
  return null;
}

function settleConflicts(area) {
  const hunks = Array.from(document.querySelectorAll(".conflict-hunk"));
  const settled = new Set();
  for (const hunk of hunks) {
    const choices = document.createElement("div");
    choices.className = "choices";
    const status = document.createElement("p");
    status.className = "choice-status";
    status.setAttribute("role", "status");
    for (const [label, keep] of [["Keep saved meanwhile", "theirs"], ["Keep yours", "yours"], ["Keep both", "both"]]) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "secondary";
      button.textContent = label;
      button.addEventListener("click", () => {
        const index = hunks.filter((other) => other !== hunk && !settled.has(other))
          .filter((other) => hunks.indexOf(other) < hunks.indexOf(hunk)).length;
        const lines = area.value.split("\n");
        const block = settled.has(hunk) ? null : markerBlock(lines, index);
        if (!block) {
          status.textContent = "The markers of this stretch are no longer in the text; edit it by hand.";
          return;
        }
        const [first, last, split] = block;
        const theirs = lines.slice(first + 1, split);
        const yours = lines.slice(split + 1, last);
        const kept = keep === "theirs" ? theirs : keep === "yours" ? yours : theirs.concat(yours);
        lines.splice(first, last - first + 1, ...kept);
        area.value = lines.join("\n");
        area.dispatchEvent(new Event("input"));
        settled.add(hunk);
        hunk.classList.add("settled");
        status.textContent = `Settled: ${label.toLowerCase()}.`;
        goToLine(area, first + 1);
      });
      choices.append(button);
    }
    hunk.append(choices, status);
  }
}

// Ctrl+S (Cmd+S) saves; leaving with changed text asks first; a save whose `updated:`
// line is the one the page opened with gets today's date.
function guardTheForm(area) {
  const form = area.form;
  const save = form?.querySelector("button[value=save]");
  if (!form || !save) return;
  const opened = area.value;
  let submitting = false;
  form.addEventListener("keydown", (event) => {
    if (event.key.toLowerCase() === "s" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit(save);
    }
  });
  form.addEventListener("submit", (event) => {
    submitting = true;
    if (event.submitter === save) bumpUpdated(area, opened);
  });
  window.addEventListener("beforeunload", (event) => {
    if (!submitting && area.value !== opened) event.preventDefault();
  });
  window.addEventListener("pageshow", () => { submitting = false; });
}

const UPDATED_LINE = /^updated:.*$/m;

function bumpUpdated(area, opened) {
  const before = opened.match(UPDATED_LINE);
  const now = area.value.match(UPDATED_LINE);
  if (!before || !now || before[0] !== now[0]) return;  // absent, or the editor set it
  const today = new Date().toISOString().slice(0, 10);
  area.value = area.value.replace(UPDATED_LINE, `updated: ${today}`);
}

document.addEventListener("DOMContentLoaded", () => {
  const area = document.querySelector(".editor-form textarea[name=text]");
  if (!area) return;
  addGutter(area);
  linkLines(area);
  settleConflicts(area);
  guardTheForm(area);
  document.querySelector("#preview")?.scrollIntoView({ block: "start" });
});
