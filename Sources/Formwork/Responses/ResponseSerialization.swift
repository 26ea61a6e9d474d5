import Foundation

/// Turns a request's outcome into typed values. Pure functions: they run off the main actor.
enum ResponseSerialization {
    /// Statuses whose responses never have a body.
    static let emptyBodyStatusCodes: Set<Int> = [204, 205]

    /// `true` when the response is one that may legitimately have no body.
    static func allowsEmptyBody(_ outcome: RequestOutcome) -> Bool {
        if outcome.request?.httpMethod?.uppercased() == "HEAD" { return true }
        guard let head = outcome.head else { return false }
        if emptyBodyStatusCodes.contains(head.statusCode) { return true }
        return head.value(forHTTPHeaderField: "Content-Length") == "0"
    }

    /// The body as `Data` (empty when the response had none).
    static func data(_ outcome: RequestOutcome) -> Result<Data, NetworkError> {
        if let error = outcome.error { return .failure(error) }
        return .success(outcome.data ?? Data())
    }

    /// The body as text, in the response's declared charset or else UTF-8.
    static func string(_ outcome: RequestOutcome, encoding: String.Encoding?) -> Result<String, NetworkError>
    {
        if let error = outcome.error { return .failure(error) }
        let data = outcome.data ?? Data()
        if data.isEmpty { return .success("") }
        let chosen = encoding ?? declaredEncoding(of: outcome.response) ?? .utf8
        guard let text = String(data: data, encoding: chosen) else {
            return .failure(
                failure(
                    .stringDecodingFailed, outcome,
                    "The body (\(data.count) bytes) is not valid text in the \(chosen) encoding."))
        }
        return .success(text)
    }

    /// The body (or the value at `keyPath` in it) decoded as `T`.
    static func decode<T: Decodable>(
        _ type: T.Type, _ outcome: RequestOutcome, keyPath: String?, decoder: JSONDecoder
    ) -> Result<T, NetworkError> {
        if let error = outcome.error { return .failure(error) }
        let data = outcome.data ?? Data()
        if data.isEmpty {
            if let empty = T.self as? any EmptyResponse.Type,
                allowsEmptyBody(outcome) || T.self == EmptyBody.self
            {
                if let value = empty.emptyValue() as? T { return .success(value) }
            }
            let why =
                allowsEmptyBody(outcome) ? "\(T.self) cannot stand for an empty body" : "the body is empty"
            return .failure(failure(.emptyResponse, outcome, "Cannot decode \(T.self): \(why)."))
        }
        var slice = data
        if let keyPath {
            guard let path = JSONKeyPath(keyPath) else {
                return .failure(failure(.keyPathNotFound, outcome, "\"\(keyPath)\" is not a valid key path."))
            }
            do {
                // The decoder checks the value's own bytes: the path only measures them.
                slice = try path.value(in: data, checksValue: false)
            } catch {
                switch error {
                case .malformed:
                    return .failure(
                        failure(
                            .invalidJSON, outcome,
                            malformedReason(path, data) ?? "The body is not valid JSON."))
                case .notFound(let component):
                    return .failure(
                        failure(
                            .keyPathNotFound, outcome,
                            "The JSON body has no value at \"\(keyPath)\" (\"\(component)\" is missing)."))
                }
            }
        }
        do {
            return .success(try decoder.decode(T.self, from: slice))
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                if keyPath == nil {
                    return .failure(
                        failure(
                            .invalidJSON, outcome, "The body is not valid JSON: \(context.debugDescription)",
                            error))
                }
                // The value was only measured: checked now, on this failure path, it is refused as
                // it was before, when it is not well-formed.
                if let keyPath, let path = JSONKeyPath(keyPath), let malformed = malformedReason(path, data) {
                    return .failure(failure(.invalidJSON, outcome, malformed))
                }
            }
            let at = keyPath.map { " at \"\($0)\"" } ?? ""
            return .failure(
                failure(.decodingFailed, outcome, "Cannot decode \(T.self)\(at): \(describe(error))", error))
        } catch {
            return .failure(failure(.decodingFailed, outcome, "Cannot decode \(T.self): \(error)", error))
        }
    }

    /// Why the body is not well-formed JSON at `path`, checked value and all; `nil` when it is.
    private static func malformedReason(_ path: JSONKeyPath, _ data: Data) -> String? {
        do {
            _ = try path.range(in: data)
            return nil
        } catch {
            guard case .malformed(let offset, let reason) = error else { return nil }
            return "The body is not valid JSON (\(reason) at byte \(offset))."
        }
    }

    private static func failure(
        _ kind: NetworkError.Kind, _ outcome: RequestOutcome, _ reason: String,
        _ underlying: (any Error)? = nil
    ) -> NetworkError {
        NetworkError(
            kind, failureReason: reason, underlyingError: underlying, request: outcome.request,
            response: outcome.response, data: outcome.data)
    }

    private static func declaredEncoding(of response: HTTPURLResponse?) -> String.Encoding? {
        guard let name = response?.textEncodingName?.lowercased() else { return nil }
        switch name {
        case "utf-8", "utf8": return .utf8
        case "iso-8859-1", "latin1": return .isoLatin1
        case "us-ascii", "ascii": return .ascii
        case "utf-16": return .utf16
        case "utf-16le": return .utf16LittleEndian
        case "utf-16be": return .utf16BigEndian
        default: return nil
        }
    }

    /// A readable one-liner for a DecodingError: what went wrong and where.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(
                separator: ".")
            return text.isEmpty ? "the top level" : "\"\(text)\""
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context))"
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "expected \(type) but found null at \(path(context))"
        case .dataCorrupted(let context):
            return "corrupted data at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }
}
