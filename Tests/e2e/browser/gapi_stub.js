// A stand-in for https://apis.google.com/js/api.js in the browser tests (served under that name
// to a Chromium whose host resolver maps apis.google.com to the test's HTTPS server). It offers
// the part of gapi.iframes the Firebase JS SDK and authemu's helper iframe use: open a child
// iframe, get the parent container, register handlers, send with a reply, ping. Each side talks
// to the window it was given when the container was made, as gapi does: an iframe page that
// replaced window.parent (a global `var parent`) cannot answer.
(function () {
  var FILTER = function () { return true; };
  var nextId = 1;
  var replies = {};
  var containers = [];

  function Container(targetWindow) {
    this.target = targetWindow;
    this.handlers = {};
    containers.push(this);
  }
  Container.prototype.register = function (name, handler) { this.handlers[name] = handler; };
  Container.prototype.send = function (name, data, callback) {
    var id = nextId++;
    replies[id] = callback || function () {};
    this.target.postMessage({gapiStub: 'call', id: id, name: name, data: data}, '*');
  };
  Container.prototype.ping = function (callback) {
    var self = this;
    var answered = false;
    function again() {
      if (answered) return;
      self.send('__ping', {}, function () { if (!answered) { answered = true; callback(); } });
      setTimeout(again, 100);
    }
    again();
    return {then: function (ok) { return ok; }};
  };
  Container.prototype.restyle = function () { return Promise.resolve(); };

  window.addEventListener('message', function (e) {
    var message = e.data;
    if (!message || typeof message !== 'object' || !message.gapiStub) return;
    if (message.gapiStub === 'reply') {
      var reply = replies[message.id];
      delete replies[message.id];
      if (reply) reply(message.result);
      return;
    }
    for (var i = 0; i < containers.length; i++) {
      var container = containers[i];
      if (container.target !== e.source) continue;
      var handler = container.handlers[message.name];
      if (message.name === '__ping') handler = function () { return {status: 'ACK'}; };
      if (!handler) return;
      container.target.postMessage({gapiStub: 'reply', id: message.id, result: [handler(message.data)]}, '*');
      return;
    }
  });

  var context = {
    getParentIframe: function () { return new Container(window.parent); },
    open: function (options, onOpen) {
      var frame = document.createElement('iframe');
      frame.src = options.url;
      frame.id = 'gapi-child';
      options.where.appendChild(frame);
      var container = new Container(frame.contentWindow);
      if (onOpen) onOpen(container);
      return container;
    }
  };
  window.gapi = {
    iframes: {CROSS_ORIGIN_IFRAMES_FILTER: FILTER, getContext: function () { return context; }},
    load: function (name, options) { setTimeout(options.callback || options, 0); }
  };
  if (typeof window.gapi_onload === 'function') setTimeout(window.gapi_onload, 0);
})();
