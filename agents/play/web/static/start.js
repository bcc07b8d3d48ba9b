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

  function update() {
    const g = game();
    deckField.classList.toggle("hidden", g !== "draw");
    itemsField.classList.toggle("hidden", g !== "draw");
    playersField.classList.toggle("hidden", g === "draw");
    if (g === "holdem" && players.dataset.touched !== "1") players.value = "2";
    if (g === "reddog" && players.dataset.touched !== "1") players.value = "4";
  }

  players.addEventListener("input", () => { players.dataset.touched = "1"; });
  form.querySelectorAll("input[name=game]").forEach((r) => r.addEventListener("change", update));
  update();

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const g = game();
    const body = { game: g, opponent: form.opponent.value };
    if (g === "draw") body.deck = Number(form.deck.value);
    else body.players = Number(players.value);
    // Optional numbers: sent only when filled in (the server checks them).
    const extra = g === "draw" ? ["money", "items", "seed"] : ["money", "seed"];
    for (const name of extra) {
      const v = form[name].value.trim();
      if (v !== "") body[name] = Number(v);
    }
    const button = document.getElementById("start-button");
    button.disabled = true;
    try {
      const res = await fetch("/api/games", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const data = await res.json();
      if (!res.ok) {
        error.textContent = data.error || "the game could not start";
        return;
      }
      window.location.assign("/game/" + encodeURIComponent(data.id));
    } catch (e) {
      error.textContent = "the server does not answer: " + e;
    } finally {
      button.disabled = false;
    }
  });
})();
