// The page's start: its modules wired together, the game opened (the
// player's rated game in play, a room linked or kept, or the page's own),
// then followed by its stream of events for as long as the page is open.

import { hooks, prefs, sleep, store, ui } from "./state.js";
import { serverLost, setConn, showMessage } from "./notices.js";
import { puzzleOn } from "./game.js";
import { turned, xy } from "./board.js";
import { apply, events } from "./api.js";
import { gameEventsPath } from "./watch.js";
import { puzzleRecord } from "./learn.js";
import { cancelPending } from "./input.js";
import { joinRoom, linkedRoom, openGame, Refused, roomCode } from "./room.js";
import { resumeRated, signIn } from "./lobby.js";
import { drawPage } from "./panels.js";
import "./controls.js";

// The call that goes up the imports (see state.js's hooks).
hooks.render = drawPage;

// What the browser tests read, as the globals they were when the page was
// one script: the state by its old names (`audio` is set too, to count the
// tones), and the functions they call.
for (const name of ["S", "sel", "pending", "note", "replySeenAt", "viewPly", "puzzle", "player", "lobby", "audio"]) {
  Object.defineProperty(window, name, { get: () => ui[name], set: (value) => { ui[name] = value; } });
}
Object.assign(window, { prefs, xy, turned, puzzleOn, puzzleRecord, cancelPending, showMessage, setConn });

// Opens the board's game, then follows it until the page goes; a game
// the server lost starts it over.
async function start() {
  for (;;) {
    try {
      const linked = linkedRoom();
      // A rated game in play comes first: a room's link waits for it.
      if (ui.player && await resumeRated()) {
        if (linked) {
          history.replaceState(null, "", location.pathname);
          showMessage("finish your rated game first: then open the room's link again");
        }
        break;
      }
      const kept = store.get("room", null);
      const code = linked || (kept && kept.code);
      const refused = code ? await joinRoom(code) : null;
      if (code && !refused) { setConn(""); break; }
      // A room gone or full: the page goes on with a game of its own (and
      // forgets the seat only if it was that room's).
      if (code) {
        if (kept && kept.code === roomCode(code)) store.set("room", null);
        history.replaceState(null, "", location.pathname);
      }
      await openGame();
      setConn("");
      if (refused) showMessage(`Not in the room: ${refused}`);
      break;
    } catch (e) {
      // No game to play meanwhile: the controls wait with the page.
      document.body.classList.add("nogame");
      setConn(e instanceof Refused ? `${e.message} (trying again)` : "cannot reach the server; retrying");
      await sleep(e instanceof Refused ? 3000 : 1000);
    }
  }
  document.body.classList.remove("nogame");
  if (ui.player && !ui.lobbyEvents) signIn(ui.player);
  return follow();
}
// The board's game as its stream tells it. A state applies as a move's
// answer does (an older one than the board's is dropped); a stream lost
// leaves the board offline, taking no move, while it is opened again,
// soon at first and then less often.
async function follow() {
  let wait = 500;
  for (;;) {
    // Between games (a room entered or left): the next one is coming.
    if (!ui.S) { await sleep(100); continue; }
    // Aborted when the board goes to another game (room.js's leaveGame).
    const following = ui.gameEvents = new AbortController();
    let gone = false;
    try {
      const r = await fetch(gameEventsPath(), { signal: following.signal });
      gone = r.status === 404 || r.status === 403;
      // (A server too busy for the stream is tried again as if lost.)
      if (r.ok) {
        for await (const { event, data } of events(r)) {
          if (event === "gone") { gone = true; break; }
          if (event !== "state") continue;
          // A move on its way is shown by its answer first, and what came
          // after it (the engine's reply, say) once that has been drawn.
          if (ui.moving) { await ui.moving; await sleep(20); }
          // Read as the board left its game: news of a game not shown.
          if (following.signal.aborted) break;
          apply(JSON.parse(data));
          wait = 500;
        }
      }
    } catch (e) { /* the stream is lost: opened again below */ }
    if (following.signal.aborted) continue;
    if (gone) {
      // A rated game resumed after a restart has new seats: the lobby
      // has the player's.
      if (ui.player && await resumeRated()) continue;
      if (ui.S.watching) {
        showMessage("the game watched is over and closed: back to your own board");
        ui.S = null;
        return start();
      }
      setConn("the server lost this game (restarted?); starting a new one");
      ui.S = null;
      store.set("room", null);
      return start();
    }
    serverLost("lost connection to the server; retrying");
    await sleep(wait);
    wait = Math.min(2 * wait, 3000);
  }
}
start();
