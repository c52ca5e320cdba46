import AuthEmulator
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Renders an `AuthError` in the Identity Toolkit envelope:
/// `{"error":{"code":400,"message":"CODE : detail","errors":[{…}],"status"?:…}}`.
enum ErrorEnvelope {
    static func response(for error: AuthError) -> Response {
        let (status, body) = envelope(for: error)
        return JSONResponse.make(body, status: status)
    }

    /// The status and the JSON body of an error's answer.
    static func envelope(for error: AuthError) -> (HTTPResponse.Status, JSONValue) {
        let (status, statusText, reason, extra): (HTTPResponse.Status, String?, String, [String: JSONValue]) =
            switch error.kind {
            case .badRequest: (.badRequest, nil, "invalid", ["domain": "global"])
            case .invalidArgument(let reason): (.badRequest, "INVALID_ARGUMENT", reason, [:])
            case .unauthenticated:
                (
                    .unauthorized, "UNAUTHENTICATED", "authError",
                    ["domain": "global", "location": "Authorization", "locationType": "header"]
                )
            case .permissionDenied: (.forbidden, "PERMISSION_DENIED", "forbidden", ["domain": "global"])
            case .notFound: (.notFound, "NOT_FOUND", "notFound", [:])
            case .payloadTooLarge: (.contentTooLarge, "FAILED_PRECONDITION", "payloadTooLarge", [:])
            case .notImplemented: (.notImplemented, "NOT_IMPLEMENTED", "unimplemented", [:])
            case .unavailable: (.serviceUnavailable, "UNAVAILABLE", "backendError", [:])
            case .internalError: (.internalServerError, "INTERNAL", "internal", [:])
            }
        var item: [String: JSONValue] = ["message": .string(error.message), "reason": .string(reason)]
        if case .unauthenticated = error.kind { item["message"] = "Invalid Credentials" }
        for (key, value) in extra { item[key] = value }
        var body: [String: JSONValue] = [
            "code": .number(Double(status.code)), "message": .string(error.message), "errors": .array([.object(item)]),
        ]
        if let statusText { body["status"] = .string(statusText) }
        return (status, .object(["error": .object(body)]))
    }
}

/// JSON responses.
enum JSONResponse {
    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        make(bytes: value.serialized(), status: status)
    }

    static func make(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A listing, its entries written straight into the answer's buffer (one copy of megabytes).
    static func make(listing: JSONListing) -> Response {
        var buffer = ByteBufferAllocator().buffer(capacity: listing.count)
        buffer.writeBytes(listing.opening)
        for (index, entry) in listing.entries.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            buffer.writeBytes(entry)
        }
        buffer.writeBytes(JSONListing.closing)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: buffer))
    }
}

/// Turns every failure into an enveloped response: domain errors as they are, unknown routes as
/// 404, oversized bodies as 413, and anything unexpected as a logged 500 (never a crash).
struct ErrorEnvelopeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as AuthError {
            return ErrorEnvelope.response(for: error)
        } catch let error as HTTPError {
            switch error.status {
            case .notFound: return ErrorEnvelope.response(for: .routeNotFound)
            case .contentTooLarge:
                return ErrorEnvelope.response(for: .bodyTooLarge)
            case .methodNotAllowed: return ErrorEnvelope.response(for: .routeNotFound)
            default:
                return ErrorEnvelope.response(
                    for: AuthError(
                        "INVALID_ARGUMENT", error.body ?? "\(error.status)", kind: .invalidArgument(reason: "invalid")))
            }
        } catch is NIOTooManyBytesError {
            return ErrorEnvelope.response(for: .bodyTooLarge)
        } catch {
            context.logger.error("unexpected error: \(error)")
            return ErrorEnvelope.response(
                for: AuthError("INTERNAL", "An internal error occurred: \(type(of: error))", kind: .internalError))
        }
    }
}
