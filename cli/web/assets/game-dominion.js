// game-dominion.js: Dominion as a table: the other players across the
// top, the supply (base piles left, the ten Kingdom piles in the middle),
// the play area with this turn's Actions, Buys and coins on the right,
// and the hand along the bottom. A card that can be played, bought or
// picked glows; every card shows its text (and its tooltip the whole).
"use strict";
(function () {
  var treasure = { Copper: 1, Silver: 1, Gold: 1 };
  var victory = { Estate: 1, Duchy: 1, Province: 1, Gardens: 1 };
  var attack = { Militia: 1, Bandit: 1, Bureaucrat: 1, Witch: 1 };
  var reaction = { Moat: 1 };

  function kind(name) {
    if (treasure[name]) return "treasure";
    if (victory[name]) return "victory";
    if (name === "Curse") return "curse";
    if (reaction[name]) return "reaction";
    if (attack[name]) return "attack";
    return "action";
  }
  var face = {
    treasure: ["#f7e08a", "#c99a1c"], victory: ["#bfe3a0", "#4f8f35"], curse: ["#d9c2ee", "#6c3f93"],
    reaction: ["#c4dcf5", "#3c6fa8"], attack: ["#f1e6cf", "#a33a2a"], action: ["#f1e6cf", "#8a6a3a"],
  };
  var symbol = { Copper: "$1", Silver: "$2", Gold: "$3", Estate: "1", Duchy: "3", Province: "6", Curse: "−1", Gardens: "VP" };

  var gradN = 0;
  function card(c, x, y, w, h, opts) {
    opts = opts || {};
    var k = kind(c.card), col = face[k], id = "g" + (gradN++);
    var fs = w / 11;
    var g = BM.s("g", { class: "card " + k + (opts.dim ? " dim" : ""), transform: "translate(" + x + "," + y + ")", "data-card": c.card });
    g.appendChild(BM.s("defs", null, BM.s("linearGradient", { id: id, x1: 0, y1: 0, x2: 0, y2: 1 }, [
      BM.s("stop", { offset: "0", "stop-color": col[0] }), BM.s("stop", { offset: "1", "stop-color": col[1] })])));
    g.appendChild(BM.s("rect", { x: 2, y: 4, width: w, height: h, rx: w / 14, fill: "rgba(0,0,0,.35)" }));
    g.appendChild(BM.s("rect", { x: 0, y: 0, width: w, height: h, rx: w / 14, fill: "#2a2016" }));
    g.appendChild(BM.s("rect", { x: w * 0.04, y: w * 0.04, width: w * 0.92, height: h - w * 0.08, rx: w / 18, fill: col[0] }));
    // name band
    g.appendChild(BM.s("rect", { x: w * 0.08, y: w * 0.08, width: w * 0.84, height: fs * 2, rx: fs * 0.6, fill: "#fffaf0", stroke: col[1], "stroke-width": 1 }));
    g.appendChild(BM.text(w / 2, w * 0.08 + fs * 1.4, c.card, { "font-size": c.card.length > 11 ? fs * 0.95 : fs * 1.15, "font-weight": "bold", "text-anchor": "middle", fill: "#2a2016" }));
    // art
    var artH = h * 0.3;
    g.appendChild(BM.s("rect", { x: w * 0.08, y: w * 0.08 + fs * 2.4, width: w * 0.84, height: artH, rx: 4, fill: "url(#" + id + ")" }));
    var sym = symbol[c.card] || (k === "attack" ? "⚔" : "✦");
    var ay = w * 0.08 + fs * 2.4;
    if (k === "reaction") {
      var sc = artH / 60, sx = w / 2;
      g.appendChild(BM.s("path", { d: "M" + sx + " " + (ay + 8 * sc) + " l" + (18 * sc) + " " + (7 * sc) + " v" + (14 * sc) + " c0 " + (14 * sc) + " " + (-9 * sc) + " " + (20 * sc) + " " + (-18 * sc) + " " + (25 * sc) + " c" + (-9 * sc) + " " + (-5 * sc) + " " + (-18 * sc) + " " + (-11 * sc) + " " + (-18 * sc) + " " + (-25 * sc) + " v" + (-14 * sc) + " z", fill: "rgba(255,255,255,.9)", stroke: "rgba(0,0,0,.3)" }));
    } else {
      g.appendChild(BM.text(w / 2, ay + artH * 0.68, sym, { "font-size": artH * 0.55, "text-anchor": "middle", fill: "rgba(255,255,255,.9)", "font-weight": "bold", stroke: "rgba(0,0,0,.25)", "stroke-width": 1 }));
    }
    // text
    var ty = w * 0.08 + fs * 2.4 + artH + fs * 1.3;
    var chars = Math.max(10, Math.floor(w * 0.9 / (fs * 0.56)));
    var maxLines = Math.max(1, Math.floor((h - ty - fs * 2.2) / (fs * 1.05)) + 1);
    g.appendChild(BM.lines(w / 2, ty, c.text || "", chars, fs * 1.05, { "font-size": fs * 0.95, "text-anchor": "middle", fill: "#2a2016" }, maxLines));
    // cost
    if (c.cost !== undefined) {
      g.appendChild(BM.s("circle", { cx: w * 0.17, cy: h - w * 0.17, r: fs * 1.05, fill: "#f2c230", stroke: "#8a6410", "stroke-width": 1.5 }));
      g.appendChild(BM.text(w * 0.17, h - w * 0.17 + fs * 0.4, c.cost, { "font-size": fs * 1.15, "text-anchor": "middle", "font-weight": "bold", fill: "#3a2a00" }));
    }
    if (opts.count !== undefined) {
      g.appendChild(BM.s("circle", { cx: w * 0.86, cy: h - w * 0.17, r: fs * 1.15, fill: opts.count === 0 ? "#a33" : "#222", stroke: "#fff", "stroke-width": 1.5 }));
      g.appendChild(BM.text(w * 0.86, h - w * 0.17 + fs * 0.42, opts.count, { "font-size": fs * 1.1, "text-anchor": "middle", "font-weight": "bold", fill: "#fff" }));
    }
    if (opts.times > 1) {
      g.appendChild(BM.s("rect", { x: w - fs * 3, y: -fs * 0.8, width: fs * 3.4, height: fs * 2, rx: fs, fill: "#222", stroke: "#fff" }));
      g.appendChild(BM.text(w - fs * 1.3, fs * 0.6, "×" + opts.times, { "font-size": fs * 1.2, "text-anchor": "middle", fill: "#fff", "font-weight": "bold" }));
    }
    if (opts.dim) g.appendChild(BM.s("rect", { x: 0, y: 0, width: w, height: h, rx: w / 14, fill: "rgba(20,20,30,.45)" }));
    g.appendChild(BM.s("rect", { class: "hl", x: -3, y: -3, width: w + 6, height: h + 6, rx: w / 12, fill: "none", stroke: "none" }));
    g.appendChild(BM.title(c.card + (c.cost !== undefined ? " — costs $" + c.cost : "") + "\n" + (c.text || "")));
    return g;
  }

  function textOf(b, name) {
    var t = "", cost;
    (b.supply || []).forEach(function (p) { if (p.card === name) { t = p.text; cost = p.cost; } });
    return { card: name, text: t, cost: cost };
  }

  function label(x, y, str, attrs) {
    return BM.text(x, y, str, Object.assign({ "font-size": 13, fill: "#e9edf5", "letter-spacing": 1.5, "font-weight": "bold" }, attrs || {}));
  }

  function draw(ctx) {
    var b = ctx.board, f = ctx.frame, W = 1200, H = 830;
    var svg = BM.svg(W, H, "dominion");
    svg.appendChild(BM.s("rect", { x: 0, y: 0, width: W, height: H, fill: "#3d2b1f" }));
    svg.appendChild(BM.s("rect", { x: 8, y: 8, width: W - 16, height: H - 16, rx: 18, fill: "#2f5a3e", stroke: "#5a4030", "stroke-width": 6 }));
    // players across the top
    var ps = b.players || [], pw = Math.min(280, (W - 40) / Math.max(1, ps.length));
    ps.forEach(function (p, i) {
      var x = 20 + i * pw, turn = p.seat === b.current && !b.over;
      var g = BM.s("g", { transform: "translate(" + x + ",18)", class: "player", "data-seat": p.seat });
      g.appendChild(BM.s("rect", { x: 0, y: 0, width: pw - 10, height: 50, rx: 10, fill: turn ? "#1d3a28" : "rgba(0,0,0,.25)", stroke: turn ? "#ffd166" : BM.seatColor(p.seat), "stroke-width": turn ? 3 : 2 }));
      g.appendChild(BM.s("circle", { cx: 18, cy: 25, r: 9, fill: BM.seatColor(p.seat), stroke: "#fff", "stroke-width": 2 }));
      g.appendChild(BM.text(34, 21, (p.seat + 1) + " " + BM.you(f, p.seat), { "font-size": 14, fill: "#fff", "font-weight": "bold" }));
      g.appendChild(BM.text(34, 40, "hand " + p.hand + " · deck " + p.deck + " · discard " + p.discard + (p.vp !== undefined && p.vp !== null ? " · " + p.vp + " VP" : ""), { "font-size": 12, fill: "#cfe0d0" }));
      if (p.left) g.appendChild(BM.text(pw - 20, 21, "left", { "font-size": 12, fill: "#ff9", "text-anchor": "end" }));
      svg.appendChild(g);
    });
    // supply
    var supply = b.supply || [], base = supply.filter(function (p) { return !p.kingdom; }), kingdom = supply.filter(function (p) { return p.kingdom; });
    svg.appendChild(label(24, 92, "SUPPLY"));
    var buyable = function (p) {
      var a = ctx.use(ctx.find("pile", function (t) { return t.card === p.card; }) || pickFromSupply(ctx, p.card));
      return a;
    };
    base.forEach(function (p, i) {
      var col = i % 2, row = Math.floor(i / 2), x = 22 + col * 96, y = 102 + row * 108;
      var a = buyable(p);
      var g = card(p, x, y, 88, 100, { count: p.count, dim: p.count === 0 });
      svg.appendChild(BM.clickable(g, a, ctx));
    });
    kingdom.forEach(function (p, i) {
      var col = i % 5, row = Math.floor(i / 5), x = 226 + col * 112, y = 102 + row * 164;
      var a = buyable(p);
      svg.appendChild(BM.clickable(card(p, x, y, 104, 154, { count: p.count, dim: p.count === 0 }), a, ctx));
    });
    // play area
    var px = 806, py = 84;
    svg.appendChild(BM.s("rect", { x: px, y: py, width: 376, height: 346, rx: 14, fill: "rgba(0,0,0,.22)", stroke: "rgba(255,255,255,.15)" }));
    var cur = b.current;
    svg.appendChild(label(px + 14, py + 24, "IN PLAY — " + (cur === ctx.seat ? "YOUR TURN" : BM.seatName(f, cur).toUpperCase() + "'S TURN") + (b.phase ? " · " + b.phase + " phase" : "")));
    var counters = [["Actions", b.actions], ["Buys", b.buys], ["Coins", "$" + b.coins]];
    counters.forEach(function (c, i) {
      var cx = px + 20 + i * 118;
      svg.appendChild(BM.s("rect", { x: cx, y: py + 36, width: 106, height: 50, rx: 10, fill: i === 2 ? "#f2c230" : "#efe4cc", stroke: "#2a2016" }));
      svg.appendChild(BM.text(cx + 53, py + 63, c[1], { "font-size": 22, "text-anchor": "middle", "font-weight": "bold", fill: "#2a2016" }));
      svg.appendChild(BM.text(cx + 53, py + 79, c[0], { "font-size": 11, "text-anchor": "middle", fill: "#5a4a30" }));
    });
    var inPlay = b.in_play || [];
    inPlay.forEach(function (c, i) {
      var t = textOf(b, c.card), x = px + 16 + (i % 5) * 72, y = py + 96 + Math.floor(i / 5) * 26;
      if (y > py + 200) return;
      svg.appendChild(card(t, x, y, 66, 92, { times: c.count }));
    });
    if (b.aside && b.aside.length) {
      svg.appendChild(label(px + 14, py + 232, (b.aside_what || "Aside") + " (" + BM.seatName(f, b.aside_owner) + ")", { "font-size": 12 }));
      b.aside.forEach(function (n, i) {
        var a = ctx.use(ctx.find("pick", function (t) { return t.card === n; }));
        svg.appendChild(BM.clickable(card(textOf(b, n), px + 16 + i * 60, py + 242, 56, 78), a, ctx));
      });
    }
    var trash = 0;
    (b.trash || []).forEach(function (c) { trash += c.count; });
    svg.appendChild(BM.text(px + 362, py + 334, "trash: " + trash + " card" + (trash === 1 ? "" : "s"), { "font-size": 12, fill: "#cfe0d0", "text-anchor": "end" },
    ));
    // prompt
    svg.appendChild(BM.lines(806, 462, b.prompt || "", 58, 17, { "font-size": 14, fill: "#fff" }, 3));
    // hand
    var hand = [];
    (b.hand || []).forEach(function (c) { for (var i = 0; i < c.count; i++) hand.push(c.card); });
    var hy = 536, cw = 150, ch = 214;
    var step = hand.length > 1 ? Math.min(cw + 10, (W - 260 - cw) / (hand.length - 1)) : 0;
    var x0 = Math.max(230, (W - (step * (hand.length - 1) + cw)) / 2);
    svg.appendChild(label(x0, hy - 22, ctx.seat >= 0 ? "YOUR HAND (" + hand.length + ")" : "HANDS ARE HIDDEN FROM SPECTATORS"));
    hand.forEach(function (n, i) {
      var a = ctx.use(ctx.find("hand", function (t) { return t.card === n; }) || ctx.find("pick", function (t) { return t.card === n; }));
      var g = card(textOf(b, n), x0 + i * step, hy + (a ? -12 : 0), cw, ch);
      g.classList.add("inhand");
      svg.appendChild(BM.clickable(g, a, ctx));
    });
    return svg;
  }

  // pickFromSupply: a pick of a card that is not in the hand (a gain).
  function pickFromSupply(ctx, name) {
    var inHand = false;
    (ctx.board.hand || []).forEach(function (c) { if (c.card === name) inHand = true; });
    return inHand ? null : ctx.find("pick", function (t) { return t.card === name; });
  }

  BM.games.dominion = {
    draw: draw,
    turn: function (b) { return b.current; },
    prompt: function (ctx) { return ctx.frame.your_turn ? ctx.board.prompt : ""; },
    seats: function (ctx) {
      return (ctx.board.players || []).map(function (p) {
        return {
          seat: p.seat, score: p.vp === undefined || p.vp === null ? "?" : p.vp, unit: "VP", left: p.left,
          detail: "hand " + p.hand + " · deck " + p.deck + " · discard " + p.discard + " · " + p.turns + " turns",
        };
      });
    },
    breakdown: function (ctx) {
      return { head: ["Turns"], rows: (ctx.board.players || []).map(function (p) { return [p.turns]; }) };
    },
  };
})();
