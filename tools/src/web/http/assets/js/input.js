// The person's hand on the page: a click, tap or drag on the board (a
// stone picked up, a move sent, a stone to remove), the moves browsed,
// and the keys.

import { $, render, ui } from "./state.js";
import { humanTurn, puzzleOn, shownPly, step } from "./game.js";
import { judge } from "./values.js";
import { waitWords } from "./board.js";
import { post } from "./api.js";
import { answerPuzzle, train } from "./learn.js";

// A move sent: no other is taken until the server has answered it, so
// that a quick second tap is not played as a reply to a move not seen.
async function play(m) {
  // Judged by the values of the position it is played in.
  const judged = judge(m);
  const solving = puzzleOn() && ui.S.history.length === 0;
  const training = ui.S.settings.training && !solving;
  const at = { id: ui.S.id, ply: ui.S.history.length + 1, move: m.text };
  ui.sel = null; ui.pending = null; ui.note = null;
  ui.moving = post("/api/move", m.text);
  render();
  const played = await ui.moving;
  ui.moving = false;
  if (played && solving) answerPuzzle(at, judged);
  else if (played && training) train(at, judged);
  render();
}
// Takes back a mill-closing move whose removal is not picked yet.
export function cancelPending() {
  ui.pending = null; ui.sel = null;
  ui.note = "move taken back";
  render();
}
// A point clicked: a stone picked up or put back, a move sent, a stone
// to remove picked; or why the board waits.
function clickPoint(p) {
  if (!humanTurn()) {
    const why = waitWords();
    if (why) { ui.note = why; render(); }
    return;
  }
  if (ui.pending) {
    const m = ui.pending.find((m) => m.remove === p);
    if (m) play(m);
    else if (p === ui.pending[0].to) cancelPending();
    else { ui.note = "a mill: pick one of the marked stones to remove (Esc, or the stone just moved, takes the move back)"; render(); }
    return;
  }
  ui.note = null;
  const legal = ui.S.legal;
  if (ui.S.board[p] && legal.some((m) => m.from === p)) { ui.sel = ui.sel === p ? null : p; render(); return; }
  const cands = legal.filter((m) => (m.from || null) === ui.sel && m.to === p);
  if (cands.length === 0) {
    // Lasker: a stone picked up cannot reach the point, where a stone
    // may be placed; the stone is put back, and the next click places.
    if (ui.sel !== null && legal.some((m) => !m.from && m.to === p)) ui.note = `the stone on ${ui.sel} cannot reach ${p}: click ${p} again to place a stone there`;
    ui.sel = null; render(); return;
  }
  if (cands.length === 1 && !cands[0].remove) { play(cands[0]); return; }
  ui.pending = cands; render();
}
// The point under a pointer, if any.
function pointAt(evt) {
  const t = document.elementFromPoint(evt.clientX, evt.clientY);
  return t && t.dataset ? t.dataset.point : undefined;
}
$("board").addEventListener("pointerdown", (evt) => {
  if (ui.note && !ui.pending) { ui.note = null; render(); }
  const p = pointAt(evt);
  if (!p) return;
  ui.dragFrom = p;
  clickPoint(p);
});
$("board").addEventListener("pointerup", (evt) => {
  const p = pointAt(evt);
  const from = ui.dragFrom;
  ui.dragFrom = null;
  if (p && from && p !== from && ui.sel === from) clickPoint(p);
});

// The moves browsed: by a move in the list, the buttons, or the keys.
$("moves").addEventListener("click", (evt) => {
  const ply = evt.target.dataset.ply;
  if (ply === undefined) return;
  ui.viewPly = Number(ply) === ui.S.history.length ? null : Number(ply);
  ui.sel = null; ui.pending = null;
  render();
});
$("live").onclick = () => { ui.viewPly = null; render(); };
$("first").onclick = () => step(0);
$("back").onclick = () => step(shownPly() - 1);
$("forward").onclick = () => step(shownPly() + 1);
$("end").onclick = () => step(Infinity);
document.addEventListener("keydown", (evt) => {
  if (evt.target.tagName === "TEXTAREA" || evt.target.tagName === "INPUT" || !ui.S) return;
  if ((evt.ctrlKey || evt.metaKey) && (evt.key === "z" || evt.key === "Z" || evt.key === "y")) {
    evt.preventDefault();
    if (evt.key === "y" || evt.shiftKey) $("redo").click(); else $("undo").click();
    return;
  }
  const keys = { ArrowLeft: shownPly() - 1, ArrowRight: shownPly() + 1, Home: 0, End: Infinity };
  if (evt.key === "Escape" && !$("help").hidden) { $("help").hidden = true; return; }
  if (evt.key === "Escape" && !$("profile").hidden) { $("profile").hidden = true; return; }
  if (evt.key === "Escape" && ui.pending) { evt.preventDefault(); cancelPending(); return; }
  if (evt.key in keys) { evt.preventDefault(); step(keys[evt.key]); }
});
