// game-dragonslair.js: the Sleeping Dragon's Lair as a cave of nine halls
// from the Exit to the Nest, the turn player's figure in its hall, the
// dragon's track across the top with its red field, and the bag, the
// noise and the deck below. The deck glows when you may turn over a card.
"use strict";
(function () {
  var bonus = [0, 0, 0, 1, 2, 3, 4, 6, 8]; // each hall's escape bonus (the rules)
  var cardText = {
    "Old Gold Coin": "1 gold in the bag", "Necklace": "2 gold in the bag", "Golden Cup": "3 gold in the bag",
    "Scepter": "4 gold in the bag", "Crown": "5 gold in the bag", "Dragon Egg": "2 gold; kept after an escape; the most eggs bring 5 more gold",
    "Invisibility Cap": "saves you from one second noise this turn",
    "Thieving Raven": "take 2 gold at once from the player on your left",
    "Hideout": "the treasures in your bag are counted at once and are safe",
    "Crystal Sphere": "look at the top card; you may put it under the deck",
    "Secret Passage": "move one more hall deeper (not past the Nest)",
  };
  var gold = { "Old Gold Coin": 1, "Necklace": 2, "Golden Cup": 3, "Scepter": 4, "Crown": 5, "Dragon Egg": 2 };
  function textOf(n) { return cardText[n] || (/noise/.test(n) ? "a noise: a second one wakes the dragon and the bag is lost" : ""); }

  function smallCard(n, x, y, w, h) {
    var noise = /noise/.test(n), g = BM.s("g", { transform: "translate(" + x + "," + y + ")", class: "lair-card" });
    var fill = gold[n] ? "#f2d16b" : noise ? "#d66" : "#b8c6e0";
    g.appendChild(BM.s("rect", { x: 2, y: 4, width: w, height: h, rx: 8, fill: "rgba(0,0,0,.4)" }));
    g.appendChild(BM.s("rect", { x: 0, y: 0, width: w, height: h, rx: 8, fill: fill, stroke: "#2a1e10", "stroke-width": 2 }));
    g.appendChild(BM.lines(w / 2, 20, n.replace(" (noise)", ""), 11, 14, { "font-size": 12, "font-weight": "bold", "text-anchor": "middle", fill: "#2a1e10" }, 2));
    if (gold[n]) {
      g.appendChild(BM.s("circle", { cx: w / 2, cy: h * 0.62, r: 16, fill: "#e6b422", stroke: "#8a6410", "stroke-width": 2 }));
      g.appendChild(BM.text(w / 2, h * 0.62 + 6, gold[n], { "font-size": 17, "font-weight": "bold", "text-anchor": "middle", fill: "#3a2a00" }));
    } else {
      g.appendChild(BM.lines(w / 2, h * 0.5, textOf(n), 15, 10.5, { "font-size": 9, "text-anchor": "middle", fill: "#2a1e10" }, 5));
    }
    g.appendChild(BM.title(n + ": " + textOf(n)));
    return g;
  }

  function dragonHead(x, y, r, awake) {
    return BM.s("g", { class: "dragon", transform: "translate(" + x + "," + y + ")" }, [
      BM.s("path", { d: "M" + (-r * 0.7) + " " + (-r * 0.6) + " l" + (-r * 0.3) + " " + (-r * 0.8) + " l" + (r * 0.7) + " " + (r * 0.5) + "z M" + (r * 0.7) + " " + (-r * 0.6) + " l" + (r * 0.3) + " " + (-r * 0.8) + " l" + (-r * 0.7) + " " + (r * 0.5) + "z", fill: "#5a1a10" }),
      BM.s("circle", { r: r, fill: awake ? "#c0301e" : "#3f7a3a", stroke: "#1a0a05", "stroke-width": 2 }),
      BM.s("ellipse", { cx: -r * 0.38, cy: -r * 0.15, rx: r * 0.2, ry: awake ? r * 0.18 : r * 0.05, fill: "#ffd84a" }),
      BM.s("ellipse", { cx: r * 0.38, cy: -r * 0.15, rx: r * 0.2, ry: awake ? r * 0.18 : r * 0.05, fill: "#ffd84a" }),
      BM.s("path", { d: "M" + (-r * 0.45) + " " + (r * 0.4) + " q" + (r * 0.45) + " " + (r * 0.3) + " " + (r * 0.9) + " 0", stroke: "#1a0a05", "stroke-width": 2, fill: "none" }),
    ]);
  }

  function draw(ctx) {
    var b = ctx.board, f = ctx.frame, W = 1200, H = 840;
    var svg = BM.svg(W, H, "dragonslair");
    svg.appendChild(BM.s("rect", { x: 0, y: 0, width: W, height: H, fill: "#1d1712" }));
    // dragon track
    var T = Math.max(b.red_field + 3, b.dragon + 1), cw = (W - 60) / (T + 1);
    svg.appendChild(BM.text(30, 30, "THE DRAGON'S TRACK — round " + b.round + (b.ending ? " · the dragon is awake: this is the last round" : "") + (b.tiebreak ? " · tie-break" : ""), { "font-size": 13, "font-weight": "bold", fill: b.ending ? "#ff8a7a" : "#e8d9b8", "letter-spacing": 1.2 }));
    for (var i = 0; i <= T; i++) {
      var red = i >= b.red_field;
      svg.appendChild(BM.s("rect", { x: 30 + i * cw, y: 42, width: cw - 3, height: 34, rx: 5, fill: red ? "#8b2a1e" : "#4a3d2c", stroke: "#1a120a" }));
      svg.appendChild(BM.text(30 + i * cw + cw / 2 - 1, 64, i, { "font-size": 11, "text-anchor": "middle", fill: red ? "#ffc9c0" : "#b8a888" }));
    }
    svg.appendChild(dragonHead(30 + b.dragon * cw + cw / 2 - 1, 59, 19, b.ending));
    // the cave
    var halls = [];
    for (var h = 0; h <= 8; h++) halls.push([90 + h * 127, 290 + Math.sin(h * 0.9) * 90]);
    var path = halls.map(function (p, k) { return (k ? "L" : "M") + p[0] + " " + p[1]; }).join("");
    svg.appendChild(BM.s("path", { d: path, stroke: "#3b2f24", "stroke-width": 70, fill: "none", "stroke-linejoin": "round", "stroke-linecap": "round" }));
    svg.appendChild(BM.s("path", { d: path, stroke: "#54432f", "stroke-width": 40, fill: "none", "stroke-linejoin": "round", "stroke-linecap": "round" }));
    halls.forEach(function (p, k) {
      var g = BM.s("g", { class: "hall" + (k === b.hall ? " here" : ""), transform: "translate(" + p[0] + "," + p[1] + ")", "data-hall": k });
      var r = k === 8 ? 66 : 52, d = "";
      for (var j = 0; j < 12; j++) {
        var an = j * Math.PI / 6, rr = r * (0.86 + ((k * 7 + j * 3) % 5) * 0.05);
        d += (j ? "L" : "M") + (Math.cos(an) * rr).toFixed(1) + " " + (Math.sin(an) * rr).toFixed(1);
      }
      g.appendChild(BM.s("path", { d: d + "Z", fill: k === 8 ? "#5a2a1a" : k === 0 ? "#3e5a3a" : "#6b5638", stroke: k === b.hall ? "#ffd166" : "#2a1e10", "stroke-width": k === b.hall ? 5 : 3 }));
      g.appendChild(BM.text(0, -r * 0.42, k === 0 ? "EXIT" : k === 8 ? "NEST" : "hall " + k, { "font-size": 13, "font-weight": "bold", "text-anchor": "middle", fill: "#f3e6c8" }));
      if (bonus[k]) g.appendChild(BM.text(0, r * 0.68, "+" + bonus[k] + " gold", { "font-size": 12, "text-anchor": "middle", fill: "#ffe08a" }));
      if (k === 8) g.appendChild(dragonHead(0, 8, 24, b.ending));
      g.appendChild(BM.title(k === 0 ? "the Exit" : "hall " + k + ": escaping from here adds " + bonus[k] + " gold"));
      svg.appendChild(g);
    });
    if (!b.over) {
      var hp = halls[Math.max(0, Math.min(8, b.hall))];
      var fig = BM.s("g", { class: "figure", transform: "translate(" + hp[0] + "," + (hp[1] + 6) + ")" }, [
        BM.s("ellipse", { cx: 0, cy: 22, rx: 16, ry: 5, fill: "rgba(0,0,0,.5)" }),
        BM.s("path", { d: "M-12 20 L-8 -2 L8 -2 L12 20 Z", fill: BM.seatColor(b.turn_seat), stroke: "#fff", "stroke-width": 2 }),
        BM.s("circle", { cx: 0, cy: -10, r: 9, fill: BM.seatColor(b.turn_seat), stroke: "#fff", "stroke-width": 2 }),
        BM.title(BM.seatName(f, b.turn_seat) + " is in " + (b.hall === 0 ? "the Exit" : "hall " + b.hall)),
      ]);
      svg.appendChild(fig);
    }
    // the turn player's bag and cards
    var y0 = 470;
    svg.appendChild(BM.s("rect", { x: 20, y: y0, width: 780, height: 350, rx: 16, fill: "rgba(255,240,210,.06)", stroke: BM.seatColor(b.turn_seat), "stroke-width": 2 }));
    svg.appendChild(BM.text(40, y0 + 28, (b.turn_seat === ctx.seat ? "YOUR BAG" : BM.seatName(f, b.turn_seat).toUpperCase() + "'S BAG") + " — " + b.bag_value + " gold" + (b.hall > 0 ? " (escape now: +" + bonus[b.hall] + ")" : ""),
      { "font-size": 14, "font-weight": "bold", fill: "#f3e6c8", "letter-spacing": 1 }));
    var bag = b.bag || [];
    bag.forEach(function (n, k) { svg.appendChild(smallCard(n, 40 + (k % 8) * 92, y0 + 44 + Math.floor(k / 8) * 60, 84, 110)); });
    if (!bag.length) svg.appendChild(BM.text(40, y0 + 80, "the bag is empty", { "font-size": 13, fill: "#9a8a6a" }));
    var oy = y0 + 190;
    svg.appendChild(BM.text(40, oy, "BESIDE THE BAG", { "font-size": 12, "font-weight": "bold", fill: "#c8b898", "letter-spacing": 1 }));
    var side = [];
    if (b.noise) side.push(b.noise);
    for (var c = 0; c < b.caps; c++) side.push("Invisibility Cap");
    (b.played || []).forEach(function (n) { side.push(n); });
    side.forEach(function (n, k) { svg.appendChild(smallCard(n, 40 + k * 92, oy + 12, 84, 110)); });
    if (!side.length) svg.appendChild(BM.text(40, oy + 40, "no noise yet", { "font-size": 13, "fill": "#9a8a6a" }));
    // deck
    var dx = 840, dy = y0;
    var deck = BM.s("g", { class: "deck", transform: "translate(" + dx + "," + dy + ")" });
    for (var s = 4; s >= 0; s--) deck.appendChild(BM.s("rect", { x: s * 3, y: s * 3, width: 130, height: 180, rx: 10, fill: "#402a5a", stroke: "#c9a8ff", "stroke-width": 1.5 }));
    deck.appendChild(BM.text(71, 84, "DECK", { "font-size": 18, "font-weight": "bold", "text-anchor": "middle", fill: "#e8dcff" }));
    deck.appendChild(BM.text(71, 108, b.deck + " cards", { "font-size": 13, "text-anchor": "middle", fill: "#d0c0f0" }));
    deck.appendChild(BM.s("rect", { class: "hl", x: -4, y: -4, width: 146, height: 196, rx: 12, fill: "none", stroke: "none" }));
    var draw = ctx.use(ctx.find("deck"));
    if (draw) deck.appendChild(BM.text(71, 140, "turn over", { "font-size": 13, "text-anchor": "middle", fill: "#ffd166", "font-weight": "bold" }));
    svg.appendChild(BM.clickable(deck, draw, ctx));
    svg.appendChild(BM.text(dx + 160, dy + 40, "discards: " + b.discards, { "font-size": 13, fill: "#c8b898" }));
    if (b.under) svg.appendChild(BM.text(dx + 160, dy + 62, "under the deck: " + b.under, { "font-size": 13, fill: "#c8b898" }));
    var known = (b.known_top || []);
    if (known.length) svg.appendChild(BM.lines(dx + 160, dy + 90, "You know the top: " + known.join(", "), 24, 16, { "font-size": 13, fill: "#ffd166" }, 4));
    // recent
    var rec = (b.recent || []).slice(0, 5);
    rec.forEach(function (r, k) { svg.appendChild(BM.text(dx, dy + 214 + k * 22, r, { "font-size": 12, fill: k ? "#a89878" : "#f3e6c8" })); });
    return svg;
  }

  BM.games.dragonslair = {
    draw: draw,
    turn: function (b) { return b.turn_seat; },
    prompt: function (ctx) { return ctx.frame.your_turn ? ctx.board.waiting : ""; },
    seats: function (ctx) {
      return (ctx.board.seats || []).map(function (s) {
        return {
          seat: s.seat, score: s.score, unit: "gold", left: s.left,
          detail: (s.hero ? s.hero + (s.hero_used ? " (used)" : "") + " · " : "") + s.eggs + " egg" + (s.eggs === 1 ? "" : "s") + (s.tied ? " · tied" : ""),
          tip: s.hero_power || "",
        };
      });
    },
    breakdown: function (ctx) {
      return { head: ["Hero", "Eggs"], rows: (ctx.board.seats || []).map(function (s) { return [s.hero || "", s.eggs]; }) };
    },
  };
})();
