// The solved game's values: the chances beside the board, each legal
// move's value (short, ranked, in words), and the judgement of a move the
// person makes, for training and puzzles.

import { $, prefs, ui } from "./state.js";
import { personColor, puzzleAsked, puzzleOn } from "./game.js";

// The chances, for the person (for a puzzle's side to move, or else for
// White, when nobody plays): exact with the databases, else the engine's
// last judgement.
export function drawEval() {
  const box = $("evalbox");
  const me = personColor(), side = me || (puzzleOn() ? ui.S.start.turn : "white");
  const other = side === "white" ? "black" : "white";
  let chances = null, words = "";
  if (ui.viewPly === null && ui.S.exact && !ui.S.outcome) {
    const outcome = ui.S.turn === side ? ui.S.exact.value.outcome : { win: "loss", draw: "draw", loss: "win" }[ui.S.exact.value.outcome];
    chances = { win: outcome === "win" ? 1000 : 0, draw: outcome === "draw" ? 1000 : 0, loss: outcome === "loss" ? 1000 : 0 };
    const who = me ? (outcome === "win" ? "you win" : outcome === "loss" ? "you lose" : "a draw") : (outcome === "win" ? `${side} wins` : outcome === "loss" ? `${other} wins` : "a draw");
    words = `Exact (the databases): ${who} with best play`;
  } else if (ui.viewPly === null && ui.S.engine.whiteWdl && !ui.S.outcome) {
    const [w, d, l] = ui.S.engine.whiteWdl;
    chances = side === "white" ? { win: w, draw: d, loss: l } : { win: l, draw: d, loss: w };
    const pc = (n) => `${Math.round(n / 10)}%`;
    words = me ? `The engine's judgement: you win ${pc(chances.win)}, draw ${pc(chances.draw)}, lose ${pc(chances.loss)}`
      : `The engine's judgement: ${side} wins ${pc(chances.win)}, draw ${pc(chances.draw)}, ${other} wins ${pc(chances.loss)}`;
  }
  box.hidden = chances === null;
  if (!chances) return;
  const bar = $("evalbar");
  for (const k of ["win", "draw", "loss"]) bar.querySelector("." + k).style.width = `${chances[k] / 10}%`;
  $("evalwords").textContent = words;
}

// Whether the values are shown: asked for, known, and no puzzle waiting.
export const valuesShown = () => prefs.values && !!ui.S.exact && ui.viewPly === null && !puzzleAsked();
// Wins by the fewest plies, then draws, then losses by the most (a
// placing position's values have no distance).
export const valueRank = (v) => v.outcome === "win" ? 3000 - (v.distance ?? 0) : v.outcome === "draw" ? 1000 : (v.distance ?? 0);
// A value in short: W12 (a win, the next removal in 12 plies), D, L5.
export const shortValue = (v) => v.outcome === "draw" ? "D" : (v.outcome === "win" ? "W" : "L") + (v.distance ?? "");
// Every legal move's value, best first, beside the board.
export function drawValueList() {
  const list = $("valueList");
  list.hidden = !valuesShown();
  if (list.hidden) return;
  const known = ui.S.legal.filter((m) => ui.S.exact.moves[m.text]);
  known.sort((a, b) => valueRank(ui.S.exact.moves[b.text]) - valueRank(ui.S.exact.moves[a.text]));
  // A move and its value stay on one line.
  list.textContent = "Best first: " + known.map((m) => `${m.text}\u00a0${shortValue(ui.S.exact.moves[m.text])}`).join(" · ");
}

// A database value in words: "win, the next removal in 12 plies",
// "draw"; "win" in the placing phase, whose values have no distance. The
// distance is the databases' own, to the next removal, not to the end.
export function dbWords(v) {
  // The distance is not said: the removal the rule cuts off may be a later one.
  if (v.withoutRule) return `draw by the ${ui.S.settings.nMoveRule}-move rule (a ${v.withoutRule} without it)`;
  if (v.outcome === "draw" || v.distance === null) return v.outcome;
  return `${v.outcome}, the next removal in ${v.distance} ${v.distance === 1 ? "ply" : "plies"}`;
}

// The outcomes, worst first.
export const VALUE_RANK = { loss: 0, draw: 1, win: 2 };
// The databases' judgement of the person's move `m` (before it is
// played): the value it keeps or gives away, marked "" (kept), "?" (a
// win let go to a draw) or "??" (to a loss), and the moves that keep it,
// best first; null where the databases do not hold the position.
export function judge(m) {
  const v = ui.S.exact && ui.S.exact.moves[m.text];
  if (!v) return null;
  const before = ui.S.exact.value.outcome;
  const value = (l) => ui.S.exact.moves[l.text] || {};
  const kept = ui.S.legal.filter((l) => value(l).outcome === before)
    .sort((a, b) => valueRank(value(b)) - valueRank(value(a))).map((l) => l.text);
  const mark = VALUE_RANK[v.outcome] >= VALUE_RANK[before] ? "" : v.outcome === "draw" ? "?" : "??";
  return { before, after: v.outcome, mark, kept };
}
// Why the databases judge no move here, in words.
export function unjudgedWhy() {
  return !ui.S.databases ? "this server has no endgame databases"
    : !ui.S.databasesHoldRules ? "the databases hold no position of these rules"
    : "the databases do not hold this position";
}
