import Foundation

/// The words Formwork shows to people, sorted by failure class. Replace them to localise.
///
/// Defaults are short English sentences. An app with its own language sets
/// ``MessageCatalog/current`` once at launch:
///
/// ```swift
/// var words = MessageCatalog.english
/// words[.timedOut] = "请求超时"
/// words[.offline] = "网络连接已断开"
/// MessageCatalog.current = words
/// ```
public struct MessageCatalog: Sendable, Equatable {
    /// A class of failure that has its own sentence; read or replace its words with
    /// ``MessageCatalog/subscript(_:)``.
    public enum Message: String, Sendable, Hashable, CaseIterable {
        /// The request timed out (URLError -1001).
        case timedOut
        /// The device is offline (URLError -1009 and friends).
        case offline
        /// The server could not be reached (cannot connect -1004, cannot find host -1003, DNS).
        case cannotConnect
        /// The connection dropped while the request was running (-1005: a reset, a body cut short, a
        /// connection closed before any response; Linux's -1 and -1011 for these become -1005).
        case connectionLost
        /// TLS failed or the server's certificate was not trusted.
        case secureConnectionFailed
        /// Any other network failure.
        case networkFailure
        /// HTTP 400.
        case badRequest
        /// HTTP 401.
        case unauthorized
        /// HTTP 403.
        case forbidden
        /// HTTP 404.
        case notFound
        /// HTTP 408 and 429.
        case tooManyRequests
        /// Any other 4xx.
        case clientError
        /// Any 5xx.
        case serverError
        /// Any other unexpected status.
        case unexpectedStatus
        /// The response arrived but could not be read (bad JSON, missing key path, wrong type, empty).
        case unreadableResponse
        /// The request was malformed and never sent (invalid URL, header, parameters or multipart body).
        case invalidRequest
        /// A file could not be read or saved (a file to upload, a multipart file part, a download).
        case fileOperationFailed
        /// The request was cancelled.
        case cancelled
        /// The outbox could not take or keep a request (its directory is in use or unusable, it is
        /// full or closed); a request that expired in the outbox gets ``outboxExpired``.
        case outboxFailed
        /// A request waited in the outbox past its expiry and was not sent.
        case outboxExpired
        /// A business error arrived without a message of its own.
        case businessFailure
    }

    /// The sentence for a class of failure; set it to replace the words.
    ///
    /// ```swift
    /// var words = MessageCatalog.english
    /// words[.timedOut] = "请求超时"
    /// ```
    /// - Parameter message: The class of failure.
    public subscript(_ message: Message) -> String {
        get { self[keyPath: Self.words(of: message)] }
        set { self[keyPath: Self.words(of: message)] = newValue }
    }

    /// Where each message's words are kept.
    private static func words(of message: Message) -> WritableKeyPath<MessageCatalog, String> {
        switch message {
        case .timedOut: \.timedOut
        case .offline: \.offline
        case .cannotConnect: \.cannotConnect
        case .connectionLost: \.connectionLost
        case .secureConnectionFailed: \.secureConnectionFailed
        case .networkFailure: \.networkFailure
        case .badRequest: \.badRequest
        case .unauthorized: \.unauthorized
        case .forbidden: \.forbidden
        case .notFound: \.notFound
        case .tooManyRequests: \.tooManyRequests
        case .clientError: \.clientError
        case .serverError: \.serverError
        case .unexpectedStatus: \.unexpectedStatus
        case .unreadableResponse: \.unreadableResponse
        case .invalidRequest: \.invalidRequest
        case .fileOperationFailed: \.fileOperationFailed
        case .cancelled: \.cancelled
        case .outboxFailed: \.outboxFailed
        case .outboxExpired: \.outboxExpired
        case .businessFailure: \.businessFailure
        }
    }

    // The words, one per `Message` (tests read them by name).
    var timedOut = "The request timed out."
    var offline = "You appear to be offline."
    var cannotConnect = "Could not connect to the server."
    var connectionLost = "The network connection was lost."
    var secureConnectionFailed = "A secure connection to the server could not be made."
    var networkFailure = "A network error occurred."
    var badRequest = "The request was not accepted by the server."
    var unauthorized = "Please sign in again."
    var forbidden = "You do not have permission to do this."
    var notFound = "The requested item was not found."
    var tooManyRequests = "The server is busy. Please try again later."
    var clientError = "The request could not be completed."
    var serverError = "The server had a problem. Please try again later."
    var unexpectedStatus = "The server sent an unexpected response."
    var unreadableResponse = "The response could not be read."
    var invalidRequest = "The request could not be made."
    var fileOperationFailed = "The file could not be read or saved."
    var cancelled = "The request was cancelled."
    var outboxFailed = "The request could not be saved to send later."
    var outboxExpired = "The request expired before it could be sent."
    var businessFailure = "The operation failed."

    /// When `true`, messages end with the failure's code, e.g. "The request timed out. (-1001)".
    /// Defaults to `true` in DEBUG builds of Formwork and `false` otherwise.
    public var showsCodes: Bool = MessageCatalog.isDebugBuild

    /// Creates the English catalog.
    public init() {}

    /// The default English words.
    public static let english = MessageCatalog()

    /// The catalog ``NetworkError/userMessage`` uses. Set it once at launch to replace the words.
    public static var current: MessageCatalog {
        get { storage.current }
        set { storage.withLock { $0 = newValue } }
    }

    private static let storage = Protected(MessageCatalog.english)

    static var isDebugBuild: Bool {
        #if DEBUG
            return true
        #else
            return false
        #endif
    }

    /// The message for an HTTP status code outside 2xx (for responses without a readable message).
    /// - Parameter statusCode: The HTTP status.
    /// - Returns: The catalog's sentence for that class of status.
    func message(forStatusCode statusCode: Int) -> String {
        switch statusCode {
        case 400: badRequest
        case 401: unauthorized
        case 403: forbidden
        case 404: notFound
        case 408, 429: tooManyRequests
        case 400..<500: clientError
        case 500..<600: serverError
        default: unexpectedStatus
        }
    }

    /// The message for a transport error's `URLError` code.
    /// - Parameter code: The URLError code.
    /// - Returns: The catalog's sentence for that class of failure.
    func message(forURLErrorCode code: URLError.Code) -> String {
        switch code {
        case .timedOut:
            timedOut
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive:
            offline
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed:
            cannotConnect
        case .networkConnectionLost, .unknown:
            // `.unknown` only reaches here from an app's own URLError: Formwork's transport errors
            // already carry -1005 for Linux's -1 (see `NetworkError.platformIndependent`).
            connectionLost
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid,
            .clientCertificateRejected, .clientCertificateRequired:
            secureConnectionFailed
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData,
            .cannotDecodeContentData, .zeroByteResource:
            unreadableResponse
        case .cancelled:
            cancelled
        default:
            networkFailure
        }
    }
}

extension NetworkError {
    /// A short sentence for a person, chosen by failure class from ``MessageCatalog/current``.
    ///
    /// Timeouts, offline, cannot connect, TLS, 4xx, 5xx and unreadable responses each get their
    /// own words. With ``MessageCatalog/showsCodes`` (on in DEBUG builds) the code is appended:
    /// `"The request timed out. (-1001)"`, `"The server had a problem. Please try again later. (500)"`.
    public var userMessage: String {
        userMessage(using: .current)
    }

    /// ``userMessage`` with the words of a given catalog.
    /// - Parameter catalog: The words to use.
    /// - Returns: The sentence, with the code appended when the catalog shows codes.
    public func userMessage(using catalog: MessageCatalog) -> String {
        let (text, code) = classified(using: catalog)
        guard catalog.showsCodes, let code else { return text }
        return "\(text) (\(code))"
    }

    private func classified(using catalog: MessageCatalog) -> (String, String?) {
        switch kind {
        case .transport:
            if let code = urlErrorCode {
                return (catalog.message(forURLErrorCode: code), String(code.rawValue))
            }
            return (catalog.networkFailure, nil)
        case .cancelled:
            return (catalog.cancelled, nil)
        case .serverTrust:
            return (catalog.secureConnectionFailed, reason?.name ?? kind.name)
        case .unacceptableStatusCode, .validationFailed:
            if let statusCode {
                return (catalog.message(forStatusCode: statusCode), String(statusCode))
            }
            return (catalog.unexpectedStatus, nil)
        case .business:
            return (businessMessage ?? catalog.businessFailure, businessCode)
        case .fileOperationFailed:
            return (catalog.fileOperationFailed, kind.name)
        case .webSocket:
            if let statusCode {
                return (catalog.message(forStatusCode: statusCode), String(statusCode))
            }
            return (catalog.networkFailure, reason?.name ?? kind.name)
        case .outbox:
            return (
                reason == .expired ? catalog.outboxExpired : catalog.outboxFailed, reason?.name ?? kind.name
            )
        case _ where kind.isResponseSerialization:
            return (catalog.unreadableResponse, kind.name)
        case _ where kind.isInvalidRequest:
            return (catalog.invalidRequest, kind.name)
        default:
            return (catalog.networkFailure, kind.name)
        }
    }
}
