"use strict";
// The start page: choose a game and start it (POST /api/games), then go to its page.

(function () {
  const form = document.getElementById("start-form");
  const deckField = document.getElementById("deck-field");
  const playersField = document.getElementById("players-field");
  const players = document.getElementById("players");
  const error = document.getElementById("start-error");
  const itemsField = document.getElementById("items-field");

  function game() {
    return form.querySelector("input[name=game]:checked").value;
  }

  const note = document.getElementById("trained-note");
  const startButton = document.getElementById("start-button");
  // Which tables the trained opponents (normal, hard) play: from the server, which
  // reads its models folder. Until it answers, nothing is refused here (the server is).
  let tables = null;

  function problem() {
    const g = game();
    if (!tables || form.opponent.value === "easy") return null;
    const value = g === "draw" ? form.deck.value : players.value;
    const why = tables.trained[g][String(value)];
    return why === undefined ? null : why;
  }

  function update() {
    const g = game();
    if (tables && tables.min_money) {
      // The least money a hand of this game needs (the browser refuses less itself).
      const money = form.money;
      money.min = tables.min_money[g];
      money.max = tables.max_money;
      money.placeholder = `default (at least ${tables.min_money[g]})`;
    }
    deckField.classList.toggle("hidden", g !== "draw");
    itemsField.classList.toggle("hidden", g !== "draw");
    playersField.classList.toggle("hidden", g === "draw");
    if (g === "holdem" && players.dataset.touched !== "1") players.value = "2";
    if (g === "reddog" && players.dataset.touched !== "1") players.value = "4";
    if (tables) {
      // Mark the decks and levels that have no trained opponent.
      for (const opt of form.deck.options) {
        const why = tables.trained.draw[opt.value];
        opt.textContent = opt.dataset.label + (why && form.opponent.value !== "easy" ? " (easy only)" : "");
      }
    }
    const why = problem();
    startButton.disabled = why !== null;
    note.textContent = why === null
      ? (tables ? "Trained opponents: " + tables.summary.replace(/^trained opponents \(normal, hard\) play /, "") + "; easy plays every table." : "")
      : `${form.opponent.value} is not offered for this table: ${why}. Choose easy, or one of: ` +
        tables.summary.replace(/^trained opponents \(normal, hard\) play /, "") + ".";
    note.classList.toggle("error", why !== null);
  }

  for (const opt of form.deck.options) opt.dataset.label = opt.textContent;
  // Back from a game: the browser brings back the fields as they were; a table size
  // set by hand stays (update() would put the game's default back).
  if (players.value !== players.defaultValue) players.dataset.touched = "1";
  window.addEventListener("pageshow", () => {
    // Without the back-forward cache the browser fills the fields back in after this
    // script ran: a table size set by hand (not the game's default) stays.
    const defaults = { holdem: "2", reddog: "4" };
    if (players.value !== players.defaultValue && players.value !== defaults[game()]) {
      players.dataset.touched = "1";
    }
    update();
  });
  // The browser's own check refused the form: an earlier answer's error is stale.
  form.addEventListener("invalid", () => { error.textContent = ""; }, true);
  players.addEventListener("input", () => { players.dataset.touched = "1"; update(); });
  form.opponent.addEventListener("change", update);
  form.deck.addEventListener("change", update);
  form.querySelectorAll("input[name=game]").forEach((r) => r.addEventListener("change", update));
  update();
  fetch("/api/tables").then((r) => r.json()).then((t) => { tables = t; update(); }).catch(() => {});

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const g = game();
    const body = { game: g, opponent: form.opponent.value };
    if (g === "draw") body.deck = Number(form.deck.value);
    else if (players.value.trim() !== "") body.players = Number(players.value);  // empty: the default
    // Optional numbers: sent only when filled in (the server checks them).
    const extra = g === "draw" ? ["money", "items", "seed"] : ["money", "seed"];
    for (const name of extra) {
      const v = form[name].value.trim();
      // A seed goes as its digits (a number past 2**53 would be rounded on the way).
      if (v !== "") body[name] = name === "seed" && /^\d+$/.test(v) ? v : Number(v);
    }
    const button = document.getElementById("start-button");
    button.disabled = true;
    try {
      const res = await fetch("/api/games", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      let data;
      try {
        data = await res.json();
      } catch (e) {
        error.textContent = `the server answered ${res.status} without a reason`;
        return;
      }
      if (!res.ok) {
        error.textContent = data.error || "the game could not start";
        return;
      }
      window.location.assign("/game/" + encodeURIComponent(data.id));
    } catch (e) {
      error.textContent = "the server does not answer: " + e;
    } finally {
      update();
    }
  });
})();
