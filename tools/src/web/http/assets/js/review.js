// The review of a game: the value after every move as a graph, the
// moves that gave value away, each a step to its position.

import { $, prefs, ui } from "./state.js";
import { gameShown, moveNumber, shownPly, step } from "./game.js";
import { el } from "./board.js";
import { post } from "./api.js";

// The review: White's expected score after every move as a graph (filled
// dots exact, hollow the engine's), and the moves that gave value away.
export function drawReview() {
  const R = ui.S.review;
  $("review").hidden = !R;
  $("reviewBtn").disabled = ui.S.history.length === 0 || !!ui.S.engine.thinking;
  if (!R) return;
  const g = $("graph");
  g.replaceChildren();
  const n = R.points.length - 1;
  const X = (i) => 10 + (n === 0 ? 0 : (i / n) * 580), Y = (v) => 110 - v * 100;
  el("line", { x1: 10, y1: Y(0.5), x2: 590, y2: Y(0.5), class: "mid" }, g);
  const known = R.points.map((p, i) => [i, p]).filter(([, p]) => p.white !== null);
  el("polyline", { points: known.map(([i, p]) => `${X(i)},${Y(p.white)}`).join(" "), class: "curve" }, g);
  for (const [i, p] of known) el("circle", { cx: X(i), cy: Y(p.white), r: 3.5, class: p.exact ? "exactdot" : "enginedot" }, g);
  for (const m of R.marks) {
    const p = R.points[m.ply];
    if (p && p.white !== null) el("circle", { cx: X(m.ply), cy: Y(p.white), r: 7, class: "markdot" }, g);
  }
  const here = shownPly();
  if (here <= n) el("line", { x1: X(here), y1: 5, x2: X(here), y2: 115, class: "here" }, g);
  const exact = R.points.filter((p) => p.exact).length;
  // The end of a game is exact by the rules, databases or not.
  const parts = [!ui.S.databases ? "The engine's judgement (hollow dots): this server has no endgame databases (build them with morris gen-db; see the help)." :
    !ui.S.databasesHoldRules ? "The engine's judgement (hollow dots): the databases hold no position of this game's rules." :
    !R.databases ? "The engine's judgement (hollow dots): the databases do not reach this game." :
    exact === R.points.length ? "Exact throughout: the databases." :
    "Exact where the databases reach (filled dots); elsewhere the engine's judgement (hollow)."];
  if (R.toCome > 0) parts.push(`The engine is judging: ${R.toCome} positions to come.`);
  if (n < ui.S.history.length) parts.push(`The first ${n} moves.`);
  const judged = R.points.filter((p) => p.white !== null).length;
  if (R.toCome === 0 && judged < R.points.length) {
    parts.push(`Cut short: ${judged} of ${R.points.length} positions judged.`);
    if (R.marks.length === 0) parts.push("No move judged changed the game's value.");
  } else if (R.marks.length === 0 && R.toCome === 0) parts.push("No move changed the game's value.");
  $("reviewWords").textContent = parts.join(" ");
  const list = $("marks");
  list.replaceChildren();
  for (const m of R.marks) {
    const li = document.createElement("li");
    li.dataset.ply = m.ply;
    li.textContent = `${moveNumber(m.ply)} ${m.move} (${m.side}): ${m.words}` + (m.best ? `; best ${m.best}` : "") + (m.exact ? " · exact" : " · the engine");
    list.appendChild(li);
  }
}
$("graph").addEventListener("click", (evt) => {
  if (!ui.S.review) return;
  const box = $("graph").getBoundingClientRect(), n = ui.S.review.points.length - 1;
  const x = ((evt.clientX - box.left) / box.width) * 600;
  step(Math.round(((x - 10) / 580) * n));
});
$("marks").addEventListener("click", (evt) => { const ply = evt.target.dataset.ply; if (ply) step(Number(ply)); });
// The review asked for, brought into view.
async function review() {
  ui.resultClosed = gameShown();
  if (await post("/api/review")) $("review").scrollIntoView({ block: "nearest", behavior: prefs.motion ? "smooth" : "auto" });
}
$("reviewBtn").onclick = review;
$("reviewAfter").onclick = review;
