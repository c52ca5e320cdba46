import AuthEmulator
import Foundation
import Hummingbird

/// The pages the SDKs open for popup and redirect IdP sign-in against an emulator
/// (`/emulator/auth/handler`, `/emulator/auth/iframe`). The handler lists the IdP's accounts and
/// makes new ones; the chosen one goes back to the app as an auth event whose `urlResponse` is
/// `…/emulator/auth/handler?providerId=…&id_token=<JSON claims>`, which the SDK then sends to
/// `signInWithIdp` as `requestUri`. Delivery follows the SDKs: popups through the relay iframe
/// of the opener, web redirects through this origin's sessionStorage, Android through an
/// `intent://` link (`genericidp` scheme), iOS through the app's URL scheme.
enum IdpWidgetPages {
    static func response(_ html: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func handler(providerId: String, accounts: [(info: ProviderUserInfo, idToken: String)]) -> String {
        let items = accounts.map { account -> String in
            let name = account.info.displayName ?? "(no display name)"
            let email = account.info.email ?? ""
            return """
                <li><button type="button" class="account" data-id-token="\(escaped(account.idToken))">\
                <b>\(escaped(name))</b><br><small>\(escaped(email))</small></button></li>
                """
        }.joined(separator: "\n")
        let help =
            accounts.isEmpty
            ? "No \(escaped(providerId)) accounts exist in the emulator yet: add one."
            : "Pick an account of the emulator, or add a new one:"
        return """
            <!DOCTYPE html>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>authemu: sign in with \(escaped(providerId))</title>
            <style>
            body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem; }
            ul { list-style: none; padding: 0; } li { margin: .4rem 0; }
            button.account { width: 100%; text-align: left; padding: .6rem; }
            label { display: block; margin: .6rem 0 .2rem; } input { width: 100%; padding: .4rem; box-sizing: border-box; }
            #error { color: #b00020; min-height: 1.2em; }
            </style>
            <h1>Sign in with \(escaped(providerId))</h1>
            <p>\(help)</p>
            <ul id="accounts">
            \(items)
            </ul>
            <form id="add">
              <h2>New account</h2>
              <label for="email">Email</label><input id="email" name="email" type="email" required>
              <label for="name">Display name (optional)</label><input id="name" name="name">
              <label for="screen">Screen name (optional)</label><input id="screen" name="screen">
              <label for="photo">Photo URL (optional)</label><input id="photo" name="photo" type="url">
              <p id="error"></p>
              <button type="submit" id="sign-in">Sign in as this account</button>
            </form>
            <script>
            \(script)
            </script>
            """
    }

    /// Kept to ES5 so it runs in the embedded browsers of the mobile SDKs too.
    static let script = #"""
        var query = new URLSearchParams(location.search);
        function stop(message) {
          document.body.textContent = 'authemu IdP widget: ' + message;
          document.body.style.color = '#b00020';
          throw new Error(message);
        }
        if (query.get('error')) stop(query.get('error'));
        var apiKey = query.get('apiKey');
        var appName = query.get('appName');
        var authType = query.get('authType') || '';
        var providerId = query.get('providerId');
        var redirectUrl = query.get('redirectUrl');
        var eventId = query.get('eventId');
        var clientId = query.get('clientId');
        var firebaseAppId = query.get('appId');
        var apn = query.get('apn');
        var ibi = query.get('ibi');
        var storageKey = apiKey + ':' + appName;
        if (!(appName || clientId || firebaseAppId || apn || ibi)) {
          stop('the link names no app (appName, clientId, appId, apn or ibi).');
        }

        function finish(claimsJson) {
          var urlResponse = location.href.split('?')[0] + '?providerId=' + encodeURIComponent(providerId) +
              '&id_token=' + encodeURIComponent(claimsJson);
          var authEvent = {type: authType, eventId: eventId, urlResponse: urlResponse,
                           sessionId: 'unused-by-authemu', postBody: '', tenantId: null, error: null};
          if (/popup/i.test(authType)) return relayToOpener(authEvent);
          if (apn) return openAndroidApp(authEvent);
          if (ibi) return openIosApp(authEvent);
          if (redirectUrl) {
            sessionStorage['firebase:redirectEvent:' + storageKey] = JSON.stringify(authEvent);
            location = redirectUrl;
            return;
          }
          stop('this sign-in flow has no way back to the app; use signInWithCredential.');
        }

        // The JS SDK's popup flow listens in its helper iframe (/emulator/auth/iframe) on the opener.
        function relayToOpener(authEvent) {
          var delivered = false;
          var frames = window.opener ? window.opener.frames : [];
          for (var i = 0; i < frames.length; i++) {
            try {
              var frameQuery = new URLSearchParams(frames[i].location.search);
              if (frameQuery.get('apiKey') === apiKey && frameQuery.get('appName') === appName) {
                frames[i].postMessage({eventType: 'sendAuthEvent', eventId: String(Date.now()),
                                       data: {authEvent: authEvent, storageKey: storageKey}}, '*');
                delivered = true;
              }
            } catch (e) { /* a frame of another origin */ }
          }
          if (!delivered) stop('no helper iframe of this app found on the page that opened the popup.');
        }

        function openAndroidApp(authEvent) {
          var link = 'intent://firebase.auth/#Intent;scheme=genericidp;package=' + apn +
              ';S.authType=' + authEvent.type + ';' +
              (authEvent.eventId ? 'S.eventId=' + authEvent.eventId + ';' : '') +
              'S.link=' + encodeURIComponent(authEvent.urlResponse) + ';B.encryptionEnabled=false;' +
              'S.browser_fallback_url=' + encodeURIComponent(location.href + '&error=App+not+found+for+intent') +
              ';end;';
          location.replace(link);
        }

        function openIosApp(authEvent) {
          var callback = location.protocol + '//' + location.host + '/__/auth/callback?authType=' +
              encodeURIComponent(authEvent.type) + '&link=' + encodeURIComponent(authEvent.urlResponse) +
              (authEvent.eventId ? '&eventId=' + authEvent.eventId : '');
          var scheme = clientId ? clientId.split('.').reverse().join('.')
              : firebaseAppId ? 'app-' + firebaseAppId.replace(/:/g, '-') : ibi;
          var host = (clientId || firebaseAppId) ? 'firebaseauth' : 'google';
          location.replace(scheme + '://' + host + '/link?deep_link_id=' + encodeURIComponent(callback));
        }

        var accounts = document.querySelectorAll('button.account');
        for (var i = 0; i < accounts.length; i++) {
          accounts[i].addEventListener('click', function (e) { finish(e.currentTarget.dataset.idToken); });
        }

        document.getElementById('add').addEventListener('submit', function (e) {
          e.preventDefault();
          var email = document.getElementById('email').value;
          if (email.indexOf('@') < 0) {
            document.getElementById('error').textContent = 'An email address needs an "@".';
            return;
          }
          var sub = '';
          for (var i = 0; i < 21; i++) sub += Math.floor(Math.random() * 10);
          var claims = {sub: sub, iss: '', aud: '', exp: 0, iat: 0, email: email, email_verified: true};
          var name = document.getElementById('name').value;
          var screen = document.getElementById('screen').value;
          var photo = document.getElementById('photo').value;
          if (name) claims.name = name;
          if (screen) claims.screen_name = screen;
          if (photo) claims.picture = photo;
          finish(JSON.stringify(claims));
        });
        """#

    /// The JS SDK's helper iframe: answers its `webStorageSupport` probe and hands over the auth
    /// event of a popup (posted by the handler page) or of a redirect (left in sessionStorage).
    /// It needs gapi's iframe library from apis.google.com, as the SDK's own flow does.
    static let relayFrame = #"""
        <!DOCTYPE html>
        <meta charset="utf-8">
        <title>authemu helper iframe</title>
        <script>
        var query = new URLSearchParams(location.search);
        var storageKey = query.get('apiKey') + ':' + query.get('appName');
        var parent = null;
        window.addEventListener('message', function (e) {
          if (!e.data || typeof e.data !== 'object' || e.data.eventType !== 'sendAuthEvent') return;
          if (e.data.data.storageKey !== storageKey) return;
          if (parent) {
            send(e.data.data.authEvent);
          } else {
            sessionStorage['firebase:redirectEvent:' + storageKey] = JSON.stringify(e.data.data.authEvent);
          }
        });
        function send(authEvent) {
          parent.send('authEvent', {type: 'authEvent',
                                    authEvent: authEvent || {type: 'unknown', error: {code: 'auth/no-auth-event'}}},
                      function () {}, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
        }
        function start() {
          parent = gapi.iframes.getContext().getParentIframe();
          parent.register('webStorageSupport', function () { return {status: 'ACK', webStorageSupport: true}; },
                          gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
          var stored = sessionStorage['firebase:redirectEvent:' + storageKey];
          delete sessionStorage['firebase:redirectEvent:' + storageKey];
          send(stored ? JSON.parse(stored) : null);
        }
        window.gapi_onload = function () {
          gapi.load('gapi.iframes', {callback: start, timeout: 10000, ontimeout: function () {
            alert('authemu: could not load gapi.iframes from apis.google.com.');
          }});
        };
        </script>
        <script src="https://apis.google.com/js/api.js"></script>
        """#
}
