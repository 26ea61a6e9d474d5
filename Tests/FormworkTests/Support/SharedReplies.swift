import Foundation

@testable import Formwork

// Types the unit and integration suites share (the integration suites are also compiled, without
// the unit suites, by the Examples package's behaviour suite).

/// A catalog entry, named so it can be a test argument.
enum Words: String, Sendable, CaseIterable {
    case timedOut, offline, cannotConnect, connectionLost, secureConnectionFailed, networkFailure, badRequest
    case unauthorized, forbidden, notFound, tooManyRequests, clientError, serverError, unexpectedStatus
    case unreadableResponse

    func text(in catalog: MessageCatalog) -> String {
        switch self {
        case .timedOut: catalog.timedOut
        case .offline: catalog.offline
        case .cannotConnect: catalog.cannotConnect
        case .connectionLost: catalog.connectionLost
        case .secureConnectionFailed: catalog.secureConnectionFailed
        case .networkFailure: catalog.networkFailure
        case .badRequest: catalog.badRequest
        case .unauthorized: catalog.unauthorized
        case .forbidden: catalog.forbidden
        case .notFound: catalog.notFound
        case .tooManyRequests: catalog.tooManyRequests
        case .clientError: catalog.clientError
        case .serverError: catalog.serverError
        case .unexpectedStatus: catalog.unexpectedStatus
        case .unreadableResponse: catalog.unreadableResponse
        }
    }
}

/// `GET /stats?tag=T`.
struct StatsReply: Decodable {
    let requests: Int
    let bytesSent: [String: Int64]
    let bytesReceived: [String: Int64]
    let tag: TagStats
}

/// One tag's counters.
struct TagStats: Decodable, Sendable {
    let name: String
    let requests: Int
    let bytesSent: Int64
    let bytesReceived: Int64
}
