/**
 * The answer page's only style sheet and script, inlined into the page: it loads nothing from anywhere else
 * (it must work where only the API's host is reachable), and its Content-Security-Policy allows exactly
 * these two by their SHA-256 hashes — no other script or style runs, whatever a question's text contains.
 *
 * The script is progressive enhancement: the page is one form that works without it. With it, a prompt of
 * several questions becomes a stepper (one question at a time, "1 of 3", Back / Next, Submit on the last),
 * a question left unanswered is pointed out before anything is sent, typing an own answer of a single-select
 * question chooses its "Other", and the time left counts down. Every sentence it shows comes from the page
 * (data attributes written from lib/web/answer-page-html.ts), so each is written once.
 */
import { createHash } from "node:crypto";

export const PAGE_STYLE = `
:root{color-scheme:light dark;--fg:#1b1c1f;--muted:#50545c;--bg:#fff;--card:#f4f5f7;--line:#b8bcc4;--accent:#0b57d0;--accent-fg:#fff;--error:#b3261e;--focus:#c2410c}
@media (prefers-color-scheme:dark){:root{--fg:#eceef1;--muted:#b4b8bf;--bg:#131416;--card:#1e2023;--line:#5a5e66;--accent:#8ab4f8;--accent-fg:#0b1d3a;--error:#f2b8b5;--focus:#fdba74}}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;background:var(--bg);color:var(--fg);font:1.0625rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:40rem;margin:0 auto;padding:1.25rem 1rem 2rem}
h1{font-size:1.5rem;line-height:1.25;margin:.25rem 0 .5rem}
p{margin:.5rem 0}
.meta,.stepper,.hint{color:var(--muted)}
.context{white-space:pre-wrap;overflow-wrap:anywhere;border-left:4px solid var(--line);padding:.25rem .75rem;margin:.75rem 0}
.stepper{font-weight:600;margin:1rem 0 .5rem}
.alert{border:2px solid var(--error);border-radius:.5rem;padding:.75rem 1rem;margin:1rem 0;font-weight:600}
fieldset{border:1px solid var(--line);border-radius:.75rem;background:var(--card);margin:1rem 0;padding:.75rem 1rem 1rem;min-width:0}
fieldset.invalid{border:2px solid var(--error)}
legend{float:left;width:100%;padding:0;margin:0 0 .25rem}
legend+*{clear:both}
.header{display:block;font-size:.8125rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;color:var(--muted)}
.question{display:block;font-size:1.125rem;font-weight:600;margin-top:.125rem}
.question,.label,.desc,dd,.answer{white-space:pre-wrap;overflow-wrap:anywhere}
.error{color:var(--error);font-weight:600}
.option{display:flex;gap:.75rem;align-items:flex-start;min-height:3rem;padding:.75rem;margin:.5rem 0;border:1px solid var(--line);border-radius:.5rem;background:var(--bg);cursor:pointer}
.option:has(input:checked){border-color:var(--accent);box-shadow:inset 0 0 0 1px var(--accent)}
.option input{flex:none;width:1.375rem;height:1.375rem;margin:.0625rem 0 0;accent-color:var(--accent)}
.label{display:block;font-weight:600}
.desc{display:block;color:var(--muted);font-size:.9375rem}
.own{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text]{width:100%;min-height:3rem;padding:.625rem .75rem;font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:.5rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1.25rem 0}
button{min-height:3rem;min-width:6.5rem;padding:.625rem 1.25rem;font:inherit;font-weight:600;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:.5rem;cursor:pointer}
button.primary{color:var(--accent-fg);background:var(--accent);border-color:var(--accent)}
button.skip{margin-left:auto}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.option:has(input:focus-visible){outline:3px solid var(--focus);outline-offset:2px}
.option input:focus-visible{outline:none}
dl{margin:1rem 0}
dt{margin-top:1.25rem}
dt .question{font-size:1.0625rem}
dd{display:inline-block;margin:.5rem .5rem 0 0;padding:.375rem .75rem;border:1px solid var(--accent);border-radius:.5rem;background:var(--card)}
.answer{font-weight:600}
@media (max-width:30rem){main{padding:1rem .75rem 1.5rem}.actions button{flex:1 1 40%}button.skip{margin-left:0}}
`;

export const PAGE_SCRIPT = `
(function () {
  "use strict";
  var timer = document.getElementById("time-left");
  if (timer) {
    var end = Date.now() + Number(timer.getAttribute("data-remaining-ms"));
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    var tick = function () {
      var left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      if (left === 0) { timer.textContent = timer.getAttribute("data-up"); return; }
      var h = Math.floor(left / 3600), m = Math.floor(left / 60) % 60, s = left % 60;
      timer.textContent = timer.getAttribute("data-left") + " " + (h > 0 ? h + ":" + pad(m) : m) + ":" + pad(s);
      setTimeout(tick, 1000);
    };
    tick();
  }

  var form = document.getElementById("answer-form");
  if (!form) return;
  var steps = Array.prototype.slice.call(form.querySelectorAll("fieldset[data-kind]"));
  var back = document.getElementById("back");
  var next = document.getElementById("next");
  var submit = document.getElementById("submit");
  var stepper = document.getElementById("stepper");
  var current = 0;
  var sent = false;

  var chosen = function (step) { return step.querySelector("input[type=radio]:checked,input[type=checkbox]:checked"); };
  var textBox = function (step) { return step.querySelector("input[type=text]"); };
  var answered = function (step) {
    var c = chosen(step), t = textBox(step), typed = Boolean(t && t.value.trim() !== "");
    if (step.getAttribute("data-kind") === "multi") return Boolean(c) || typed;
    return Boolean(c && c.value !== "other") || typed;
  };
  var flag = function (step, on) {
    var error = step.querySelector(".error");
    step.classList.toggle("invalid", on);
    if (on) error.textContent = form.getAttribute("data-missing");
    error.hidden = !on;
  };
  var focusIn = function (step) {
    var target = step.querySelector("input:checked") || step.querySelector("input");
    if (target) target.focus();
  };
  var show = function (index, focus) {
    current = index;
    steps.forEach(function (step, i) { step.hidden = i !== index; });
    stepper.textContent = (index + 1) + " " + form.getAttribute("data-of") + " " + steps.length;
    stepper.hidden = false;
    back.hidden = index === 0;
    next.hidden = index === steps.length - 1;
    submit.hidden = index !== steps.length - 1;
    if (focus) focusIn(steps[index]);
  };
  var goNext = function () {
    var step = steps[current];
    if (!answered(step)) { flag(step, true); focusIn(step); return; }
    show(current + 1, true);
  };

  steps.forEach(function (step) {
    var t = textBox(step), other = step.querySelector("input[value=other]");
    step.addEventListener("input", function () { if (step.classList.contains("invalid") && answered(step)) flag(step, false); });
    step.addEventListener("change", function () { if (step.classList.contains("invalid") && answered(step)) flag(step, false); });
    if (t && other) t.addEventListener("input", function () { if (t.value.trim() !== "") other.checked = true; });
  });

  if (steps.length > 1) {
    var first = 0;
    for (var i = 0; i < steps.length; i++) { if (steps[i].classList.contains("invalid")) { first = i; break; } }
    show(first, false);
    back.addEventListener("click", function () { show(current - 1, true); });
    next.addEventListener("click", goNext);
    form.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && event.target.tagName === "INPUT" && current < steps.length - 1) {
        event.preventDefault();
        goNext();
      }
    });
  }

  // Skip throws away what the earlier steps chose: with something chosen it asks once, in the page (no
  // dialog), and the second Skip skips.
  var skipNote = document.getElementById("skip-note");
  var skipAsked = false;
  var anyAnswered = function () { return steps.some(answered); };

  form.addEventListener("submit", function (event) {
    if (sent) { event.preventDefault(); return; }
    var skipping = Boolean(event.submitter && event.submitter.value === "skip");
    if (skipping && !skipAsked && skipNote && anyAnswered()) {
      event.preventDefault();
      skipAsked = true;
      skipNote.textContent = form.getAttribute("data-skip-confirm");
      skipNote.hidden = false;
      return;
    }
    if (!skipping) {
      for (var j = 0; j < steps.length; j++) {
        if (!answered(steps[j])) {
          event.preventDefault();
          if (steps.length > 1) show(j, false);
          flag(steps[j], true);
          focusIn(steps[j]);
          return;
        }
      }
      // What is sent is what the person sees chosen: the text box of a single-select question whose
      // option is chosen is left out (without this script the server asks which one was meant).
      steps.forEach(function (step) {
        var c = chosen(step), t = textBox(step);
        if (step.getAttribute("data-kind") === "single" && c && c.value !== "other" && t) t.disabled = true;
      });
    }
    sent = true;
  });
  // Back to this page from the next one (the browser's page cache): it can be sent again, as it was.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    sent = false;
    steps.forEach(function (step) { var t = textBox(step); if (t) t.disabled = false; });
  });
})();
`;

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/**
 * The page's Content-Security-Policy: nothing but the inline style and script above, forms only to this
 * origin, no framing, no <base>.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src ${sha256(PAGE_SCRIPT)}`,
  `style-src ${sha256(PAGE_STYLE)}`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");
