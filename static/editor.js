// failref editor: line numbers beside the text, links that put the caret on a line, and
// buttons that settle a conflict stretch. The page works without this file: its links go
// to the numbered copy of the text below the form, and the markers can be edited by hand.
"use strict";

const THEIRS_MARKER = "<<<<<<< saved meanwhile";
const SPLIT_MARKER = "=======";
const YOURS_MARKER = ">>>>>>> your version";

function lineCount(text) {
  return text.split("\n").length;
}

function addGutter(area) {
  const frame = area.closest(".editor-frame");
  if (!frame) return;
  const gutter = document.createElement("pre");
  gutter.className = "gutter";
  gutter.setAttribute("aria-hidden", "true");
  let shown = 0;
  const render = () => {
    const count = lineCount(area.value);
    if (count === shown) return;
    shown = count;
    gutter.textContent = Array.from({ length: count }, (_, i) => String(i + 1)).join("\n") + "\n";
    // The gutter is sized by hand (its CSS ignores its content): digits plus padding.
    gutter.style.width = `calc(${String(count).length}ch + 1.1rem)`;
    gutter.scrollTop = area.scrollTop;
  };
  frame.classList.add("numbered");
  frame.prepend(gutter);
  render();
  area.addEventListener("input", render);
  area.addEventListener("scroll", () => { gutter.scrollTop = area.scrollTop; });
}

function goToLine(area, number) {
  const lines = area.value.split("\n");
  const line = Math.min(Math.max(number, 1), lines.length);
  let start = 0;
  for (let i = 0; i < line - 1; i++) start += lines[i].length + 1;
  area.focus({ preventScroll: true });
  area.setSelectionRange(start, start + lines[line - 1].length);
  const height = parseFloat(getComputedStyle(area).lineHeight) || 20;
  area.scrollTop = Math.max(0, (line - 1) * height - area.clientHeight / 3);
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

document.addEventListener("DOMContentLoaded", () => {
  const area = document.querySelector(".editor-form textarea[name=text]");
  if (!area) return;
  addGutter(area);
  linkLines(area);
  settleConflicts(area);
});
