"use strict";
// The join page's script (docs/join-page.md): writes the join file `adjudicator join` writes
// from the player's name, address, language and time zone, the public key of the private key
// file chosen (or of a key made in the page) and a share drawn here, and signs it with that key
// (SIGNING, in _signing.js). It checks what a join must be; the adjudicator judges the rest when
// the join comes in, and its answer says so.
// Nothing is fetched or sent: the page's Content-Security-Policy allows no connection.
(function () {
  var DATA = JSON.parse(document.getElementById("join-data").textContent);
  var form = document.getElementById("join");
  var scalar = SIGNING.scalar;
  var NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;  // the setup's NAME (adjudicator/engine/setup.py)
  // and its EMAIL: a dot-atom, @, host-name labels, at most 64 before the @ and 254 in all
  var ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
  var LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
  var EMAIL = new RegExp("^(?!.*=\\?)(?=[^@]{1,64}@)(?=.{1,254}$)" + ATEXT + "(?:\\." +
    ATEXT + ")*@" + LABEL + "(?:\\." + LABEL + ")+$");
  var share = null;  // drawn once a page, so that signing again signs the same share
  var made = null;  // the key made in the page: {seed, pub, comment}

  function control(name) { return form.elements.namedItem(name); }
  function value(name) { return control(name).value.trim(); }

  // A zone of the time zone database as the adjudicator reads one: by its name, spelt as the
  // database spells it (the browser would take "utc", "europe/berlin" or "+01:00" too).
  function zoneKnown(zone) {
    if (!/^[A-Za-z]/.test(zone)) return false;
    var named;
    try {
      named = new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone;
    } catch (e) {
      return false;
    }
    return named.toLowerCase() !== zone.toLowerCase() || named === zone;
  }

  function chosenFile() {
    var files = control("key").files;
    return !!(files && files.length);
  }

  // The words of what keeps the join from being signed.
  function problems() {
    var found = [], name = value("name"), email = value("email"), tz = value("tz");
    if (!NAME.test(name)) found.push("join-bad-name");
    else if (DATA.reserved.indexOf(name.toLowerCase()) >= 0) found.push("join-reserved-name");
    if (!EMAIL.test(email)) found.push("join-bad-email");
    if (tz && !zoneKnown(tz)) found.push("join-bad-tz");
    if (!chosenFile() && !made) found.push("join-no-key");
    return found;
  }

  function show(words) {
    SIGNING.showList(document.querySelector("output[name=problems]"), words.map(function (word) {
      return document.querySelector("[data-word=" + word + "]").textContent;
    }));
  }

  // The join file, as `adjudicator join` writes it, carrying the key `key`.
  function joinText(key) {
    share = share || SIGNING.hex(crypto.getRandomValues(new Uint8Array(16)));
    var tz = value("tz");
    var line = SIGNING.publicLine(key.pub, key.comment).trim();
    return "id: " + scalar(DATA.id) + "\njoin:\n" +
      "  name: " + scalar(value("name")) + "\n" +
      "  email: " + JSON.stringify(value("email")) + "\n" +
      "  lang: " + control("lang").value + "\n" +
      (tz ? "  tz: " + JSON.stringify(tz) + "\n" : "") +
      "  key: " + JSON.stringify(line) + "\n" +
      "  share: \"" + share + "\"\n";
  }

  function sign(event) {
    event.preventDefault();
    SIGNING.clearSigned();
    SIGNING.keyMessage("");
    var found = problems();
    show(found);
    if (found.length) return;
    var key = chosenFile() ? SIGNING.readKey(control("key")) : Promise.resolve(made);
    var still = SIGNING.fresh();
    key.then(function (k) {
      var text = joinText(k);
      return SIGNING.sshsig(k, new TextEncoder().encode(text), DATA.namespace).then(
        function (armored) { if (still()) SIGNING.showSigned(text, armored, DATA, DATA.file); }
      );
    }).catch(function (error) { if (still()) SIGNING.keyMessage(error); });
  }

  function makeKey(event) {
    event.preventDefault();
    var name = value("name");
    var comment = NAME.test(name) ? name + "@" + DATA.id : DATA.id;
    SIGNING.makeKey(comment, DATA.keyfile).then(function (k) {
      if (!k) return;
      made = k;
      control("key").value = "";  // the new key signs, not a file chosen before
      SIGNING.clearSigned();
    });
  }

  form.addEventListener("change", SIGNING.clearSigned);
  form.addEventListener("input", SIGNING.clearSigned);
  control("sign").addEventListener("click", sign);
  control("make-key").addEventListener("click", makeKey);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  SIGNING.clearSigned();
})();
