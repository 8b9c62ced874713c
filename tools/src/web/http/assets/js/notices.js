// What the page says to the person at the foot of the screen (a word on
// what they did, a question), the word on the connection in the header,
// and the clipboard's "Copied".

import { $, render, ui } from "./state.js";

// The control a person used last: a message it raises leaves it in view.
for (const kind of ["click", "change"]) {
  document.addEventListener(kind, (evt) => {
    const control = evt.target.closest && evt.target.closest("button, select, input, textarea");
    if (control && !$("notices").contains(control)) ui.lastControl = control;
  }, { capture: true });
}
// A word for the person who acted; it goes with their next action.
export function showMessage(text) { ui.note = text; ui.closedMessage = null; render(); }
// The message at the foot of the screen, unless the person closed it:
// room is made under the page for it, and the control that raised it
// (a button at the foot of the screen) is kept in view above it.
export function drawMessage(text) {
  const box = $("message"), shown = !!text && text !== ui.closedMessage;
  const was = !box.hidden && $("messageText").textContent;
  $("messageText").textContent = shown ? text : "";
  box.hidden = !shown;
  padForNotices();
  const control = ui.lastControl;
  if (!shown || was === text || !control) return;
  const c = control.getBoundingClientRect(), n = $("notices").getBoundingClientRect();
  if (c.bottom > n.top && c.top < n.bottom) window.scrollBy(0, c.bottom - n.top + 8);
}
// Room under the page for what the foot of the screen shows, so that
// nothing is out of reach beneath it.
export function padForNotices() {
  const any = [...$("notices").children].some((c) => !c.hidden);
  document.body.style.paddingBottom = any ? `${$("notices").offsetHeight + 24}px` : "";
}
$("messageClose").onclick = () => { ui.closedMessage = $("messageText").textContent; ui.note = null; render(); };

// A question at the foot of the screen, answered by one of its two buttons.
export function ask(question, yes, no) {
  $("askText").textContent = question;
  $("askYes").textContent = yes; $("askNo").textContent = no;
  $("ask").hidden = false;
  padForNotices();
  return new Promise((resolve) => {
    const answer = (value) => () => { $("ask").hidden = true; padForNotices(); resolve(value); };
    $("askYes").onclick = answer(true); $("askNo").onclick = answer(false);
  });
}

// Copies `text`, and says so on the button for a moment.
export async function copy(button, text) {
  try { await navigator.clipboard.writeText(text); }
  catch (e) { showMessage("the browser refused the clipboard"); return; }
  const label = button.dataset.label || button.textContent;
  button.dataset.label = label;
  button.textContent = "Copied ✓";
  setTimeout(() => { button.textContent = label; }, 1500);
}
// A refusal shown goes once what the person did next succeeded.
export function closeNote() {
  ui.note = null;
  if (ui.S) render();
}

// The word on the connection in the header (cut short on a phone, whole
// in its title).
export function setConn(text) { $("conn").textContent = text; $("conn").title = text; }
// The server did not answer: said beside the title, and the board takes
// no move until it answers again.
export function serverLost(words) {
  setConn(words);
  ui.offline = true;
  if (ui.S) render();
}
