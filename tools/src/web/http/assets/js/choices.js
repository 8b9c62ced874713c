// The page's choices as the server reads them and as the page says them:
// the clock, the rules, a new game's settings, and a challenge's rules.

import { $, prefs } from "./state.js";

// Sets `select` to `value`, adding it (named by `name`) if it is none of
// its choices: a game resumed or a record opened may have its own.
export function choose(select, value, name) {
  if (![...select.options].some((o) => o.value === value)) select.add(new Option(name(value), value));
  select.value = value;
}

// The clock the page's choice names ("turn:60", "game:300", "game:180:2"
// with an increment, or none), as the server reads it.
export function clockOf(choice) {
  const [kind, seconds, increment] = choice ? choice.split(":") : [];
  return kind ? { kind, seconds: Number(seconds), increment: Number(increment || 0) } : null;
}
// The seconds of a day: a clock of whole days a move is a correspondence
// game's.
const DAY = 86400;
// Whether a clock's choice is a correspondence game's: whole days a move.
export function byCorrespondenceChoice(choice) {
  const [kind, seconds] = choice.split(":");
  return kind === "turn" && seconds >= DAY && seconds % DAY === 0;
}
// A clock's choice ("turn:60", "game:180:2", "turn:259200") in words.
export function clockWords(choice) {
  const [kind, seconds, increment] = choice.split(":");
  const minutes = seconds / 60, days = seconds / DAY;
  if (byCorrespondenceChoice(choice)) return `${days} day${days === 1 ? "" : "s"} a move (correspondence)`;
  return kind === "turn" ? `${seconds} s a move` : `${minutes} minute${minutes === 1 ? "" : "s"}` + (increment ? ` + ${increment} s a move` : " a game");
}
// A time left in the clock's words: tenths below ten seconds, minutes
// and seconds below the hour, hours and minutes below the day, then days
// and hours (a correspondence game's).
export function clockText(sec) {
  const two = (n) => String(Math.floor(n)).padStart(2, "0");
  if (sec < 10) return sec.toFixed(1);
  if (sec < 3600) return `${Math.floor(sec / 60)}:${two(sec % 60)}`;
  if (sec < DAY) return `${Math.floor(sec / 3600)} h ${two((sec % 3600) / 60)}`;
  return `${Math.floor(sec / DAY)} d ${Math.floor((sec % DAY) / 3600)} h`;
}
// When a clock with `ms` left now runs out, as a date in the reader's own
// words (a correspondence player plans by the calendar, not by hours left).
export function deadline(ms) {
  const at = new Date(Date.now() + ms), time = document.createElement("time");
  time.dateTime = at.toISOString();
  time.textContent = at.toLocaleString([], { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  return time;
}
// A clock's choice by the name the page's menu gives it.
export function clockName(choice) {
  const named = [...$("clock").options].find((o) => o.value === choice);
  return named ? named.textContent : clockWords(choice);
}
// The choice that names a clock the server sends.
export function clockChoice(c) {
  return c ? `${c.kind}:${c.time / 1000}` + (c.increment ? `:${c.increment / 1000}` : "") : "";
}
// The rules the page's choices make.
export function rulesOf() {
  return { variant: prefs.variant, nMoveRule: Number(prefs.nmoverule), flying: prefs.flying, fullBoard: prefs.fullboard };
}
// The settings the page's choices make, with the engine playing `engine`.
export function settings_json(engine) {
  return JSON.stringify({ ...rulesOf(), engine, level: prefs.level, movetime: Number(prefs.movetime),
    clock: clockOf(prefs.clock), training: prefs.training });
}
// A variant's rules in words, as a challenge has them.
export const rulesWords = (c) => `${c.variant}, ${c.nMoveRule ? `drawn after ${c.nMoveRule} moves each without a removal` : "no move limit"}${c.flying ? "" : ", no flying"}${c.fullBoard === "whiteloses" ? ", a full board lost for White" : ""}`;
// The rules a challenge is posted with: the page's, chosen for its games.
export function drawChallengeRules() {
  $("challengeRules").textContent = `of ${rulesWords({ ...rulesOf(), variant: prefs.variant })}, as chosen for your games`;
}
