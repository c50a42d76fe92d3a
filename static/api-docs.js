// The API page's "Try it" forms: send the JSON in the box to the operation and show the
// answer below it. Without this file the forms stay hidden; every operation keeps its
// curl command.
"use strict";

function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function enableTryIt(form) {
  const button = form.querySelector("button[type=submit]");
  const status = form.querySelector(".try-status");
  const answer = form.querySelector(".try-answer");
  form.hidden = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = "Sending…";
    try {
      const response = await fetch(form.action, {
        method: form.dataset.method,
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: form.elements.namedItem("body").value,
      });
      const text = await response.text();
      status.textContent = `The server answered ${response.status} ${response.statusText}:`;
      answer.querySelector("code").textContent = pretty(text);
      answer.hidden = false;
    } catch (error) {
      status.textContent = `Not sent: ${error.message}`;
      answer.hidden = true;
    } finally {
      button.disabled = false;
    }
  });
}

document.querySelectorAll("form.try-it").forEach(enableTryIt);
