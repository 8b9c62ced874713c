// Learning from the solved game: the verdict on each of the person's
// moves in training, and the puzzles (set up, answered, remembered).

import { $, prefs, render, savePrefs, store, trainMarks, ui } from "./state.js";
import { padForNotices, serverLost, showMessage } from "./notices.js";
import { forfeit } from "./game.js";
import { unjudgedWhy, VALUE_RANK } from "./values.js";
import { post } from "./api.js";

// The training verdict on the move `at` (the game, its ply and text),
// judged `j`.
export function train(at, j) {
  if (j && j.mark) trainMarks[`${at.id}/${at.ply}`] = { move: at.move, mark: j.mark };
  const what = !j ? `not judged: ${unjudgedWhy()}. The engine's judgement is what is left: a Hint before your move, or the review after the game.`
    : j.mark === "" ? (j.before === "loss" ? "the game was lost before it, with best play." : `keeps the ${j.before}.`)
    : (j.before === "win" ? (j.after === "draw" ? "a win thrown away: a draw now." : "a win turned into a loss.") : "a draw turned into a loss.")
      + ` The moves that kept the ${j.before}: ${j.kept.join(", ")}.`;
  ui.verdict = { ...at, kind: !j ? "" : j.mark ? "bad" : "good", after: j && j.after, text: `${at.move}${j ? j.mark : ""}: ${what}` };
}
// Shows the verdict on the person's last move while it is on the board.
export function drawVerdict() {
  const v = ui.verdict, box = $("verdict");
  const h = v && ui.S.id === v.id && ui.viewPly === null && ui.S.history[v.ply - 1];
  box.hidden = !h || h.move.text !== v.move;
  padForNotices();
  if (box.hidden) return;
  box.className = v.kind;
  // The reply, if it gave value back to the side that moved.
  const reply = ui.S.history[v.ply];
  const now = reply && ui.S.history.length === v.ply + 1 && ui.S.exact ? ui.S.exact.value.outcome : null;
  const better = v.after && now && VALUE_RANK[now] > VALUE_RANK[v.after];
  $("verdictText").textContent = v.text + (better ? ` Then the reply ${reply.move.text} gave value away: a ${now} for you now.` : "");
  $("takeBack").hidden = !ui.S.canUndo || v.kind === "good";
  $("takeBack").textContent = v.puzzle ? "Try again" : "Take back";
  $("showAnswer").hidden = !v.puzzle || v.kind === "good" || v.answered;
  $("nextPuzzle").hidden = !v.puzzle;
}
$("takeBack").onclick = () => { ui.lastControl = $("takeBack"); post("/api/undo"); };

// Puzzles: the grades, by the depth of the search that finds the move.
const GRADES = { 1: [1, 1], 2: [2, 4], 5: [5, 8], 9: [9, Infinity] };
const inGrade = (p, grade) => p.depth >= GRADES[grade][0] && p.depth <= GRADES[grade][1];
// Every puzzle, asked for once; whether they are here.
async function loadPuzzles() {
  if (ui.puzzles) return true;
  try {
    const r = await fetch("/api/puzzles");
    ui.puzzles = await r.json();
    return true;
  } catch (e) {
    serverLost("lost connection to the server");
    return false;
  }
}
// The puzzles solved and failed in this browser: position string to
// "solved" or "failed".
export const puzzleRecord = () => store.get("puzzles", {});
// Sets up a puzzle of the variant and the grade chosen: one not tried
// yet, else one failed; none solved.
async function nextPuzzle() {
  if (!await loadPuzzles()) return;
  const done = puzzleRecord(), grade = $("puzzleGrade").value, variant = $("variant").value;
  const ofVariant = ui.puzzles.filter((p) => p.variant === variant);
  if (!ofVariant.length) { showMessage(`No puzzles of ${variant} yet: choose another variant`); return; }
  const open = ofVariant.filter((p) => inGrade(p, grade) && done[p.fen] !== "solved");
  if (!open.length) { showMessage(`Every puzzle of ${variant} at this grade is solved: try another grade`); return; }
  if (!await forfeit("Leave this game for a puzzle?", "Puzzle")) return;
  const fresh = open.filter((p) => !(p.fen in done));
  const pool = fresh.length ? fresh : open;
  const p = pool[Math.floor(Math.random() * pool.length)];
  ui.viewPly = null; ui.sel = null; ui.pending = null; ui.verdict = null;
  const body = { variant: p.variant, nMoveRule: p.nMoveRule, flying: true, fullBoard: p.fullBoard, engine: "none", clock: null, start: p.fen, setUp: true };
  if (await post("/api/new", JSON.stringify(body))) { ui.puzzle = { ...p, id: ui.S.id }; render(); }
}
// The verdict on the first move `at` of the puzzle on the board, judged
// `j` where the databases hold it; the puzzle remembered solved (for
// good) or failed.
// Only the first try of a puzzle set up counts: one solved after a try,
// the answer or a hint is not.
export function answerPuzzle(at, j) {
  const done = puzzleRecord();
  const solved = at.move === ui.puzzle.solution;
  if (!ui.puzzle.tried && done[ui.puzzle.fen] !== "solved") done[ui.puzzle.fen] = solved ? "solved" : "failed";
  ui.puzzle.tried = true;
  store.set("puzzles", done);
  const deep = ui.puzzle.depth > 12 ? "deeper than a search of 12 plies sees" : `a search sees it ${ui.puzzle.depth} ${ui.puzzle.depth === 1 ? "ply" : "plies"} deep`;
  const gives = j && j.after !== ui.puzzle.goal ? `: it gives a ${j.after}` : "";
  const counted = done[ui.puzzle.fen] === "solved";
  const text = solved && !counted ? `Right, but not counted (only a solve at the first try counts): ${at.move} is the one move that keeps the ${ui.puzzle.goal} (${deep}).`
    : solved ? `Solved: ${at.move} is the one move that keeps the ${ui.puzzle.goal} (${deep}).`
    : `Not this one: ${at.move} does not keep the ${ui.puzzle.goal}${gives}.`;
  ui.verdict = { ...at, kind: !solved ? "bad" : counted ? "good" : "", puzzle: true, text };
}
$("showAnswer").onclick = () => {
  ui.verdict.text += ` The answer: ${ui.puzzle.solution}.`;
  ui.verdict.answered = true;
  render();
};
$("puzzleBtn").onclick = () => { ui.lastControl = $("puzzleBtn"); nextPuzzle(); };
$("nextPuzzle").onclick = () => { ui.lastControl = $("nextPuzzle"); nextPuzzle(); };
$("puzzleGrade").value = prefs.puzzleGrade;
$("puzzleGrade").onchange = async () => { prefs.puzzleGrade = $("puzzleGrade").value; savePrefs(); await loadPuzzles(); render(); };
// How many puzzles of the grade chosen are solved here.
export function drawPuzzleScore() {
  if (!ui.puzzles) { $("puzzleScore").textContent = ""; return; }
  const done = puzzleRecord(), grade = $("puzzleGrade").value;
  const all = ui.puzzles.filter((p) => inGrade(p, grade));
  const solved = all.filter((p) => done[p.fen] === "solved").length;
  $("puzzleScore").textContent = `${solved} of ${all.length} solved`;
}
