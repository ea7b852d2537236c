"""A small OpenID Connect identity provider on 127.0.0.1 for the login tests, built on Authlib's server side (Flask).

Authorization code flow with PKCE (S256) and a nonce, ID tokens signed RS256 with a key made per server, discovery
and JWKS documents: what Streamlit's ``st.login`` (Authlib's client) needs from Google, Okta or Entra ID. The login
page is a form asking which known person signs in (the test types an email); there is no password, since the
provider itself is not what is tested.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import AuthorizationCodeMixin, ClientMixin, grants
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from flask import Flask, Response, jsonify, request
from joserfc.jwk import RSAKey
from werkzeug.serving import WSGIRequestHandler, make_server


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass


@dataclass(frozen=True)
class Person:
    subject: str
    email: str
    name: str


@dataclass(frozen=True)
class Client(ClientMixin):
    client_id: str
    client_secret: str
    redirect_uri: str

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(s for s in scope.split() if s in {"openid", "email", "profile"})

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri == self.redirect_uri

    def check_client_secret(self, client_secret: str) -> bool:
        return secrets.compare_digest(client_secret, self.client_secret)

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method in {"client_secret_basic", "client_secret_post"}

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type == "authorization_code"


@dataclass
class Code(AuthorizationCodeMixin):
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    person: Person
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    auth_time: int = field(default_factory=lambda: int(time.time()))

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope

    def get_nonce(self) -> str | None:
        return self.nonce

    def get_auth_time(self) -> int:
        return self.auth_time

    def get_acr(self) -> str:
        return "0"

    def get_amr(self) -> list[str]:
        return []


class IdentityProvider:
    """``with IdentityProvider(people, client_id, client_secret, redirect_uri) as idp:`` serves ``idp.issuer``."""

    def __init__(self, people: list[Person], client_id: str, client_secret: str, redirect_uri: str) -> None:
        self._server = make_server("127.0.0.1", 0, None, threaded=True,  # type: ignore[arg-type]
                                   request_handler=_QuietHandler)  # app set below
        self.port = self._server.server_port
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.people = {p.email: p for p in people}
        self.client = Client(client_id, client_secret, redirect_uri)
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self.codes: dict[str, Code] = {}
        self.logins: list[str] = []  # emails that signed in, in order
        self.app = self._app()
        self._server.app = self.app
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    def __enter__(self) -> IdentityProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()

    def _app(self) -> Flask:
        app = Flask("test-idp")
        app.config["OAUTH2_TOKEN_EXPIRES_IN"] = {"authorization_code": 3600}
        provider = self

        class CodeGrant(grants.AuthorizationCodeGrant):
            TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

            def save_authorization_code(self, code: str, req: Any) -> None:
                data = req.payload.data
                provider.codes[code] = Code(code, req.client.client_id, req.payload.redirect_uri, req.payload.scope,
                                            req.user, data.get("nonce"), data.get("code_challenge"),
                                            data.get("code_challenge_method"))

            def query_authorization_code(self, code: str, client: Client) -> Code | None:
                found = provider.codes.get(code)
                return found if found and found.client_id == client.client_id else None

            def delete_authorization_code(self, authorization_code: Code) -> None:
                provider.codes.pop(authorization_code.code, None)

            def authenticate_user(self, authorization_code: Code) -> Person:
                return authorization_code.person

        class IdTokens(OpenIDCode):
            def resolve_client_private_key(self, client: Client) -> RSAKey:
                return provider.key

            def get_client_algorithm(self, client: Client) -> str:
                return "RS256"

            def get_encode_header(self, client: Client) -> dict[str, str]:
                return {"alg": "RS256", "kid": "test-key"}

            def get_client_claims(self, client: Client) -> dict[str, Any]:
                return {"iss": provider.issuer, "aud": [client.client_id], "exp": int(time.time()) + 3600}

            def exists_nonce(self, nonce: str, req: Any) -> bool:
                return any(c.nonce == nonce for c in provider.codes.values())

            def generate_user_info(self, user: Person, scope: str) -> UserInfo:
                return UserInfo(sub=user.subject, email=user.email, name=user.name, email_verified=True)

        server = AuthorizationServer(app, query_client=lambda cid: self.client if cid == self.client.client_id
                                     else None, save_token=lambda token, req: None)
        server.register_grant(CodeGrant, [CodeChallenge(required=True), IdTokens(require_nonce=True)])

        @app.get("/.well-known/openid-configuration")
        def discovery() -> Response:
            return jsonify({
                "issuer": provider.issuer, "authorization_endpoint": f"{provider.issuer}/authorize",
                "token_endpoint": f"{provider.issuer}/token", "jwks_uri": f"{provider.issuer}/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "scopes_supported": ["openid", "email", "profile"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                "code_challenge_methods_supported": ["S256"],
            })

        @app.get("/jwks")
        def jwks() -> Response:
            return jsonify({"keys": [provider.key.as_dict(private=False)]})

        @app.route("/authorize", methods=["GET", "POST"])
        def authorize() -> Any:
            if request.method == "GET":
                server.get_consent_grant(end_user=None)  # refuses a bad client, redirect URI or PKCE request
                return ("<form method='post'><label>Email <input name='email' id='email'></label>"
                        "<button type='submit' id='sign-in'>Sign in</button></form>")
            person = provider.people.get(request.form.get("email", ""))
            if person is None:
                return "unknown person", 403
            provider.logins.append(person.email)
            grant = server.get_consent_grant(end_user=person)
            return server.create_authorization_response(grant_user=person, grant=grant)

        @app.post("/token")
        def token() -> Any:
            return server.create_token_response()

        return app
