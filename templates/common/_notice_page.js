"use strict";
// The notice page's script (docs/order-page.md): shows the controls of the kind of notice
// chosen, writes the notice file from them, and signs it with the player's OpenSSH Ed25519 key
// (SIGNING, in _signing.js). It checks only that the notice is whole (a text, both days in
// order); the adjudicator judges the rest when the notice comes in, and its receipt says so.
// Nothing is fetched or sent: the page's Content-Security-Policy allows no connection.
(function () {
  var DATA = JSON.parse(document.getElementById("notice-data").textContent);
  var form = document.getElementById("notice");
  var scalar = SIGNING.scalar;

  function control(name) { return form.elements.namedItem(name); }
  function kind() { return control("kind").value; }

  function showKind() {
    Array.prototype.forEach.call(form.querySelectorAll("fieldset[data-kind]"), function (set) {
      set.hidden = set.getAttribute("data-kind") !== kind();
    });
  }

  // The notice's lines after id and player, or the words of what is missing.
  function body() {
    var k = kind();
    if (k === "vote") return { text: "vote: " + control("vote").value + "\n" };
    if (k === "absence") {
      var from = control("absence.from").value, to = control("absence.to").value;
      if (!from || !to) return { problem: "absence-dates" };
      if (to < from) return { problem: "absence-order" };
      return { text: "absence: {from: " + from + ", to: " + to + "}\n" };
    }
    var boxes = form.querySelectorAll("input[name='press.to']");
    var chosen = Array.prototype.filter.call(boxes, function (box) { return box.checked; })
      .map(function (box) { return box.value; });
    if (!chosen.length) chosen = ["all"];
    if (chosen.length > 1 && chosen.indexOf("all") >= 0) return { problem: "press-all-and-names" };
    var text = control("press.text").value.replace(/\r\n?/g, "\n");
    if (!text.trim()) return { problem: "press-no-text" };
    var to = chosen[0] === "all" ? "all" : "[" + chosen.map(scalar).join(", ") + "]";
    return { text: "press:\n  to: " + to + "\n  text: " + JSON.stringify(text) + "\n" };
  }

  function problem(word) {
    var said = word ? [document.querySelector("[data-word=" + word + "]").textContent] : [];
    SIGNING.showList(document.querySelector("output[name=problems]"), said);
  }

  function sign(event) {
    event.preventDefault();
    SIGNING.clearSigned();
    SIGNING.keyMessage("");
    var b = body();
    problem(b.problem);
    if (b.problem) return;
    var text = "id: " + scalar(DATA.id) + "\nplayer: " + scalar(DATA.player) + "\n" + b.text;
    var key = control("key");
    SIGNING.signText(key, text, DATA.namespace, DATA.registered).then(function (armored) {
      SIGNING.showSigned(text, armored, DATA, DATA.file.replace("{kind}", kind()));
    }, SIGNING.keyMessage);
  }

  function makeKey(event) {
    event.preventDefault();
    SIGNING.makeKey(DATA.player + "@" + DATA.id, DATA.keyfile);
  }

  control("kind").addEventListener("change", showKind);
  form.addEventListener("change", SIGNING.clearSigned);
  form.addEventListener("input", SIGNING.clearSigned);
  control("sign").addEventListener("click", sign);
  control("make-key").addEventListener("click", makeKey);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  showKind();
  SIGNING.clearSigned();
})();
