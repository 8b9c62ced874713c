// The page's start: its modules wired together, the game opened (the
// player's rated game in play, a room linked or kept, or the page's own),
// then heard by a long poll for as long as the page is open.

import { hooks, prefs, sleep, store, ui } from "./state.js";
import { serverLost, setConn, showMessage } from "./notices.js";
import { puzzleOn } from "./game.js";
import { turned, xy } from "./board.js";
import { api, apply } from "./api.js";
import { puzzleRecord } from "./learn.js";
import { cancelPending } from "./input.js";
import { joinRoom, linkedRoom, openGame, Refused, roomCode } from "./room.js";
import { refreshRated, resumeRated, signIn } from "./lobby.js";
import { drawPage } from "./panels.js";
import "./controls.js";

// The calls that go up the imports (see state.js's hooks).
hooks.render = drawPage;
hooks.refreshRated = refreshRated;

// What the browser tests read, as the globals they were when the page was
// one script: the state by its old names (`audio` is set too, to count the
// tones), and the functions they call.
for (const name of ["S", "sel", "pending", "note", "replySeenAt", "viewPly", "puzzle", "player", "lobby", "audio"]) {
  Object.defineProperty(window, name, { get: () => ui[name], set: (value) => { ui[name] = value; } });
}
Object.assign(window, { prefs, xy, turned, puzzleOn, puzzleRecord, cancelPending, showMessage, setConn });

// Opens the board's game, then hears its news until the page goes; a
// game the server lost starts it over.
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
  if (ui.player && !ui.lobbyPoll) signIn(ui.player);
  for (;;) {
    // Between games (a room entered or left): the next one is coming.
    if (!ui.S) { await sleep(100); continue; }
    try {
      const asked = ui.S.id;
      ui.polling = new AbortController();
      const r = await fetch(api("/api/state") + `&after=${ui.S.version}`, { signal: ui.polling.signal });
      if (!ui.S || ui.S.id !== asked) continue;
      if (r.status === 404 || r.status === 403) {
        // A rated game resumed after a restart has new seats: the lobby
        // has the player's.
        if (ui.player && await resumeRated()) continue;
        setConn("the server lost this game (restarted?); starting a new one");
        ui.S = null;
        store.set("room", null);
        return start();
      }
      apply(await r.json());
      setConn("");
    } catch (e) {
      if (e.name === "AbortError") continue;
      serverLost("lost connection to the server; retrying");
      await sleep(1000);
    }
  }
}
start();
