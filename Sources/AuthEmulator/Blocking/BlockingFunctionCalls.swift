import Foundation

extension Emulator {
    /// Runs a write transaction whose flow may reach blocking functions. A try that reaches a
    /// function without its answer rolls back, the function is called outside the transaction,
    /// and the flow runs again with the answer (its random draws repeated), so nothing is written
    /// until every function has answered and all checks pass against the current state.
    /// `sessionOnly`: the flow usually changes only session times (a plain sign-in), so the store
    /// may run it as a `sessionWrite`.
    func writeWithBlockingFunctions<T: Sendable>(
        _ scope: Scope, sessionOnly: Bool = false,
        _ body: @escaping @Sendable (any StoreTransaction, BlockingHooks, any RandomSource) async throws -> T
    ) async throws -> T {
        let store = self.store
        func write(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
            sessionOnly ? try await store.sessionWrite(body) : try await store.write(body)
        }
        // The common case, a scope known to have no functions, runs once and draws as usual; if
        // functions were configured meanwhile, it starts over below.
        if let cached = settingsCache.lookup(scope).0, cached.blockingFunctions.triggers.isEmpty {
            let random = self.random
            do {
                return try await write { tx in try await body(tx, BlockingHooks(), random) }
            } catch is BlockingFunctionCall {}
        }
        let random = ReplayingRandomSource(self.random)
        var hooks = BlockingHooks()
        while true {
            let attempt = hooks
            do {
                return try await write { tx in
                    random.rewind()
                    return try await body(tx, attempt, random)
                }
            } catch let call as BlockingFunctionCall {
                guard hooks.answers[call.event] == nil else {
                    throw AuthError(
                        "INTERNAL", "((Blocking function \(call.event.rawValue) reached twice.))", kind: .internalError)
                }
                hooks.answers[call.event] = try await callBlockingFunction(call)
            }
        }
    }

    /// POSTs `{"data":{"jwt":…}}` to the function and reads its answer (firebase-tools' messages).
    func callBlockingFunction(_ call: BlockingFunctionCall) async throws -> BlockingFunctionAnswer {
        let jwt = try await tokens.unsignedToken(blockingFunctionClaims(call))
        let body = JSONValue.object(["data": .object(["jwt": .string(jwt)])]).serialized()
        let url = call.uri
        let reply: BlockingFunctionReply
        do {
            guard let transport = blockingFunctionTransport else {
                throw BlockingFunctionTransportError.unreachable("no transport")
            }
            reply = try await transport.post(url: url, json: body, timeout: Self.blockingFunctionTimeout)
        } catch BlockingFunctionTransportError.timedOut {
            logger.warning("blocking function \(call.event.rawValue) at \(url): no answer in 60 s")
            throw AuthError(
                "INTERNAL", "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Deadline exceeded making request to \(url).))",
                kind: .internalError)
        } catch {
            logger.warning("blocking function \(call.event.rawValue) at \(url) unreachable: \(error)")
            throw AuthError(
                "INTERNAL", "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Failed to make request to \(url).))",
                kind: .internalError)
        }
        let text = String(decoding: reply.body, as: UTF8.self)
        logger.info("blocking function \(call.event.rawValue) for \(call.user.localId) at \(url): HTTP \(reply.status)")
        guard (200..<300).contains(reply.status) else {
            throw AuthError(
                "BLOCKING_FUNCTION_ERROR_RESPONSE",
                "((HTTP request to \(url) returned HTTP error \(reply.status): \(text)))")
        }
        guard let response = try? JSONValue.parse(Data(reply.body)) else {
            throw AuthError(
                "INTERNAL", "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Response body is not valid JSON.))",
                kind: .internalError)
        }
        return try Self.blockingFunctionAnswer(response, event: call.event)
    }

    static let blockingFunctionTimeout = Duration.seconds(60)

    /// The answer's `userRecord`, field by field as its `updateMask` lists them.
    static func blockingFunctionAnswer(_ response: JSONValue, event: BlockingEvent) throws -> BlockingFunctionAnswer {
        var answer = BlockingFunctionAnswer()
        answer.blocked = response["recaptchaActionOverride"]?.stringValue?.uppercased() == "BLOCK"
        guard let record = response["userRecord"], !record.isNull else { return answer }
        guard let mask = record["updateMask"]?.stringValue, !mask.isEmpty else {
            throw AuthError("BLOCKING_FUNCTION_ERROR_RESPONSE", "((Response UserRecord is missing updateMask.))")
        }
        for field in mask.split(separator: ",") {
            switch field {
            case "displayName": answer.displayName = .some(coercedString(record["displayName"]))
            // The Functions SDKs (Node and Python) send `photoURL`; firebase-tools reads only `photoUrl`.
            case "photoUrl", "photoURL": answer.photoUrl = .some(coercedString(record[String(field)]))
            case "disabled": answer.disabled = isTruthy(record["disabled"])
            case "emailVerified": answer.emailVerified = isTruthy(record["emailVerified"])
            case "customClaims":
                let claims = record["customClaims"] ?? .null
                answer.customAttributes = .some(
                    try CustomClaims.validate(String(decoding: claims.serialized(), as: UTF8.self)))
            case "sessionClaims":
                guard event == .beforeSignIn, let claims = record["sessionClaims"] else { continue }
                guard let object = claims.objectValue else {
                    throw AuthError("BLOCKING_FUNCTION_ERROR_RESPONSE", "((Response has malformed session claims.))")
                }
                answer.sessionClaims = object
            default:
                continue
            }
        }
        return answer
    }

    /// JavaScript's `!!value`.
    static func isTruthy(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(let flag): flag
        case .number(let number): number != 0 && !number.isNaN
        case .string(let text): !text.isEmpty
        case .array, .object: true
        default: false
        }
    }

    /// firebase-tools' `coercePrimitiveToString`: strings as they are, numbers and booleans
    /// printed, anything else absent.
    static func coercedString(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number):
            number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        default: nil
        }
    }

    /// The claims of the unsigned JWT a function receives (firebase-tools'
    /// `generateBlockingFunctionJwt`; the Functions SDK reads them in emulator mode).
    func blockingFunctionClaims(_ call: BlockingFunctionCall) -> [String: JSONValue] {
        let user = call.user
        let issuedAt = clock.now().epochSeconds
        var record: [String: JSONValue] = ["uid": .string(user.localId)]
        record.setIfPresent("email", user.email.map(JSONValue.string))
        record.setIfPresent("email_verified", user.emailVerified.map(JSONValue.bool))
        record.setIfPresent("display_name", user.displayName.map(JSONValue.string))
        record.setIfPresent("photo_url", user.photoUrl.map(JSONValue.string))
        record.setIfPresent("disabled", user.disabled.map(JSONValue.bool))
        record.setIfPresent("phone_number", user.phoneNumber.map(JSONValue.string))
        record["custom_claims"] = .object(user.customAttributes.flatMap(CustomClaims.parse) ?? [:])
        record.setIfPresent("tenant_id", call.scope.tenantId.map(JSONValue.string))
        record["provider_data"] = .array(
            user.providers.map { provider in
                var entry: [String: JSONValue] = ["provider_id": .string(provider.providerId)]
                entry.setIfPresent("display_name", provider.displayName.map(JSONValue.string))
                entry.setIfPresent("photo_url", provider.photoUrl.map(JSONValue.string))
                entry.setIfPresent("email", provider.email.map(JSONValue.string))
                // The Python Functions SDK reads `uid` of every entry.
                entry["uid"] = .string(provider.rawId ?? provider.federatedId ?? provider.email ?? "")
                entry.setIfPresent("phone_number", provider.phoneNumber.map(JSONValue.string))
                return .object(entry)
            })
        if let enrollments = user.mfaInfo {
            record["multi_factor"] = .object([
                "enrolled_factors": .array(
                    enrollments.map { enrollment in
                        var factor: [String: JSONValue] = [
                            "uid": .string(enrollment.mfaEnrollmentId),
                            "factor_id": .string(enrollment.totpInfo != nil ? "totp" : "phone"),
                        ]
                        factor.setIfPresent("display_name", enrollment.displayName.map(JSONValue.string))
                        factor.setIfPresent("enrollment_time", enrollment.enrolledAt.map(JSONValue.string))
                        factor.setIfPresent("phone_number", enrollment.phoneInfo.map(JSONValue.string))
                        return .object(factor)
                    })
            ])
        }
        // Always there: the Python Functions SDK reads `metadata.creation_time` unconditionally
        // (an imported user may have no creation time; it reads as now). Numbers of milliseconds,
        // as firebase-tools sends and firebase-functions types them (`new Date("3")` is invalid).
        var metadata: [String: JSONValue] = [
            "creation_time": .number(Double(user.createdAt.flatMap(Int64.init) ?? clock.now().epochMillis))
        ]
        metadata.setIfPresent(
            "last_sign_in_time", user.lastLoginAt.flatMap(Int64.init).map { .number(Double($0)) })
        record["metadata"] = .object(metadata)
        let context = call.context
        var claims: [String: JSONValue] = [
            "iss": .string("https://securetoken.google.com/\(call.scope.projectId)"),
            "aud": .string(call.uri),
            "iat": .number(Double(issuedAt)),
            "exp": .number(Double(issuedAt + 600)),
            "event_id": .string(random.base64URL(16)),
            "event_type": .string(call.event.rawValue),
            "user_agent": "NotYetSupportedInFirebaseAuthEmulator",
            "ip_address": .string(context.clientIP ?? "127.0.0.1"),
            "locale": "en",
            "user_record": .object(record),
            "sub": .string(user.localId),
            "sign_in_method": .string(context.signInMethod),
        ]
        claims.setIfPresent("sign_in_second_factor", context.signInSecondFactor.map(JSONValue.string))
        switch call.event {
        case .beforeSendEmail: claims.setIfPresent("email_type", context.messageType.map(JSONValue.string))
        case .beforeSendSms: claims.setIfPresent("sms_type", context.messageType.map(JSONValue.string))
        default: break
        }
        claims.setIfPresent("sign_in_attributes", context.signInAttributes.map(JSONValue.string))
        claims.setIfPresent("raw_user_info", context.rawUserInfo.map(JSONValue.string))
        claims.setIfPresent("tenant_id", call.scope.tenantId.map(JSONValue.string))
        if call.config.forwardIdToken {
            claims.setIfPresent("oauth_id_token", context.oauthIdToken.map(JSONValue.string))
        }
        if call.config.forwardAccessToken {
            claims.setIfPresent("oauth_access_token", context.oauthAccessToken.map(JSONValue.string))
        }
        return claims
    }
}
