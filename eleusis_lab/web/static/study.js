// The study's few lines of JavaScript; every page works without them.
// - the rule checker: as the rule is typed, POST /check says whether it is a rule of
//   the language (and where not), and reads it back in English;
// - the response time measured in the browser (client_ms), beside the server's;
// - one answer per page: the buttons are disabled once the form is sent;
// - New Eleusis: clicking the cards of the hand builds the string in order (the
//   selects "1st card" ... "4th card", which work without it).
(function () {
  "use strict";
  var shownAt = window.performance ? performance.now() : Date.now();

  function now() {
    return window.performance ? performance.now() : Date.now();
  }

  function say(box, state, text) {
    box.className = "check " + state;
    box.textContent = text; // text only, never markup
  }

  function checker(form, input, box) {
    var timer = null;
    var asked = 0;
    function ask() {
      var text = input.value.trim();
      if (!text) {
        say(box, "", "");
        return;
      }
      var mine = ++asked;
      var body = new URLSearchParams();
      body.set("csrf", form.elements.csrf.value);
      body.set("text", text);
      fetch("/check", { method: "POST", body: body, credentials: "same-origin" })
        .then(function (response) { return response.json(); })
        .then(function (result) {
          if (mine !== asked) return; // an older answer: the text changed since
          if (result.ok) {
            say(box, "ok", "\u2713 " + result.english);
          } else if (result.column) {
            say(box, "bad", "\u2717 column " + result.column + ": " + result.message);
          } else {
            say(box, "bad", "\u2717 " + (result.message || "not a rule"));
          }
        })
        .catch(function () { say(box, "", ""); });
    }
    input.addEventListener("input", function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(ask, 250);
    });
  }

  function strings(form) {
    var picks = form.querySelectorAll(".pick");
    var slots = [];
    for (var k = 1; form.elements["card" + k]; k++) slots.push(form.elements["card" + k]);
    if (!picks.length || !slots.length) return;
    function show() {
      var order = slots.map(function (slot) { return slot.value; });
      Array.prototype.forEach.call(picks, function (pick) {
        var at = order.indexOf(pick.getAttribute("data-card"));
        pick.classList.toggle("picked", at >= 0);
        if (at >= 0) pick.setAttribute("data-order", String(at + 1));
        else pick.removeAttribute("data-order");
      });
    }
    Array.prototype.forEach.call(picks, function (pick) {
      pick.setAttribute("role", "button");
      pick.setAttribute("tabindex", "0");
      function toggle() {
        var card = pick.getAttribute("data-card");
        var order = slots.map(function (slot) { return slot.value; }).filter(Boolean);
        var at = order.indexOf(card);
        if (at >= 0) order.splice(at, 1);
        else if (order.length < slots.length) order.push(card);
        slots.forEach(function (slot, k) { slot.value = order[k] || ""; });
        show();
      }
      pick.addEventListener("click", toggle);
      pick.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); toggle(); }
      });
    });
    slots.forEach(function (slot) { slot.addEventListener("change", show); });
    show();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("answer");
    if (!form) return;
    form.addEventListener("submit", function () {
      if (form.elements.client_ms) {
        form.elements.client_ms.value = String(Math.round(now() - shownAt));
      }
      window.setTimeout(function () { // after the form's data is taken
        Array.prototype.forEach.call(form.querySelectorAll("button"), function (button) {
          button.disabled = true;
        });
      }, 0);
    });
    strings(form);
    var rule = document.getElementById("rule");
    var box = document.getElementById("check");
    if (rule && box) checker(form, rule, box);
    var confidence = document.getElementById("confidence");
    var shown = document.getElementById("confidence-shown");
    if (confidence && shown) {
      confidence.addEventListener("input", function () { shown.textContent = confidence.value; });
    }
  });
})();
