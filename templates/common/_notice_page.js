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
  var share = null;

  function control(name) { return form.elements.namedItem(name); }

  // What the adjudicator refuses in a press text: control characters but the line feed and
  // the tab, the line and paragraph separators, noncharacters (U+FDD0 to U+FDEF, the last two
  // of every plane), the direction embeddings, overrides and isolates (the marks LRM and RLM
  // are text), and a lone half of a surrogate pair.
  var REFUSED = new RegExp(
    "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\ufdd0-\\ufdef\\ufffe\\uffff" +
    "\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]|" +
    "[\\ud83f\\ud87f\\ud8bf\\ud8ff\\ud93f\\ud97f\\ud9bf\\ud9ff" +
    "\\uda3f\\uda7f\\udabf\\udaff\\udb3f\\udb7f\\udbbf\\udbff][\\udffe\\udfff]|" +
    "[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?:^|[^\\ud800-\\udbff])[\\udc00-\\udfff]");
  function kind() { return control("kind").value; }

  function showKind() {
    Array.prototype.forEach.call(form.querySelectorAll("fieldset[data-kind]"), function (set) {
      set.hidden = set.getAttribute("data-kind") !== kind();
    });
  }

  // The notice's lines after id and player, or the words of what is missing.
  function body() {
    var k = kind();
    if (k === "vote") {
      return { text: "vote: " + control("vote").value + "\n" + SIGNING.signedAt() };
    }
    if (k === "share") {  // drawn once a page, so that signing again signs the same share
      share = share || SIGNING.hex(crypto.getRandomValues(new Uint8Array(16)));
      return { text: "share: \"" + share + "\"\n" };
    }
    if (k === "absence") {
      var from = control("absence.from").value, to = control("absence.to").value;
      if (!from || !to) return { problem: "absence-dates" };
      if (to < from) return { problem: "absence-order" };
      return { text: "absence: {from: " + from + ", to: " + to + "}\n" + SIGNING.signedAt() };
    }
    var boxes = form.querySelectorAll("input[name='press.to']");
    var chosen = Array.prototype.filter.call(boxes, function (box) { return box.checked; })
      .map(function (box) { return box.value; });
    if (!chosen.length) chosen = ["all"];
    if (chosen.length > 1 && chosen.indexOf("all") >= 0) return { problem: "press-all-and-names" };
    var text = control("press.text").value.replace(/\r\n?/g, "\n");
    if (!text.trim()) return { problem: "press-no-text" };
    // characters as the adjudicator counts them (code points, not UTF-16 units)
    if (Array.from(text).length > DATA.press_max) return { problem: "press-too-long" };
    if (REFUSED.test(text)) return { problem: "press-character" };
    var to = chosen[0] === "all" ? "all" : "[" + chosen.map(scalar).join(", ") + "]";
    // JSON's escapes are YAML's; a line holding "-----" could be read as a signature's armor
    // in a pasted mail: escape it
    var quoted = JSON.stringify(text).replace(/-----/g, "\\u002d----");
    return { text: "press:\n  to: " + to + "\n  text: " + quoted + "\n" };
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
    var key = control("key"), still = SIGNING.fresh();
    SIGNING.signText(key, text, DATA.namespace, DATA.registered).then(function (armored) {
      if (still()) SIGNING.showSigned(text, armored, DATA, DATA.file.replace("{kind}", kind()));
    }, function (error) { if (still()) SIGNING.keyMessage(error); });
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
