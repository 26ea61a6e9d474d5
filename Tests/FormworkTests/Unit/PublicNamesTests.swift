import Foundation
import Testing

@testable import Formwork

/// An app file that imports SwiftUI (or UIKit, AppKit, Combine, Observation, Foundation) and
/// Formwork must be able to use every type by its short name: a public top-level Formwork type
/// with the same name as one of theirs makes both ambiguous there (as `EdgeInsets` with SwiftUI
/// and `Empty` with Combine did, renamed to ``MaskInsets`` and ``EmptyBody``).
///
/// Formwork's public top-level names are read from its sources (swift-format keeps every
/// top-level declaration at column 0 and everything nested indented; the list was checked once
/// against `swift package dump-symbol-graph`, which gives the same 72 names). A new public name
/// fails ``everyNameWasChecked()`` until it is checked against the lists below and added to
/// ``checkedNames``.
@Suite("Public names do not clash with Apple frameworks")
struct PublicNamesTests {
    /// Every public top-level name of Formwork, each checked against the frameworks below (a name
    /// may be listed before its branch is merged: `DownloadDestinationOptions`).
    static let checkedNames: Set<String> = [
        "ClientIdentity", "PinSet", "TrustAnchors", "TrustEvaluator", "TrustPolicy", "TrustReport",
        "TrustRules",
        "Adapter", "AdapterChain", "AuthenticationCredential", "AuthenticationInterceptor", "Authenticator",
        "CachePolicy", "ConsoleLogger", "Containable", "DataRequest", "DataResponding",
        "DataResponse",
        "DownloadDestinationOptions", "DownloadFormable", "DownloadRequest", "DownloadResponse",
        "DownloadResumeFormable", "EmptyBody", "EventStreamParser", "EventStreamUpdate",
        "EmptyResponse", "Envelope", "Errorable", "EventMonitor", "Formable", "HTTPCache", "HTTPHeader",
        "HTTPHeaders",
        "HTTPMethod", "Headless", "IdempotencyKey", "Informable", "JSONErrorable",
        "LoadType", "Loadable",
        "MaskHost", "MaskInsets", "Maskable", "MessageCatalog", "Messageable",
        "MultipartFormData", "NetworkError", "OutgoingRequest", "Outbox", "OutboxModel", "ParameterEncoding",
        "Parameters",
        "PasswordCredential",
        "Progressable", "Redaction", "RedirectPolicy", "ReloadMask", "Reloadable", "Request",
        "RequestAdapter", "RequestCore",
        "RequestBody", "RequestFormable", "RequestMetrics", "RequestModel", "RequestRetrier", "Requestable",
        "ResponseSource", "ResumeData",
        "Retrier", "RetrierChain", "RetryContext", "RetryDecision", "RetryPolicy", "ScrollContainable",
        "ServerSentEvent",
        "Session", "StreamBufferPolicy", "StreamConnectionState", "StreamReconnection", "StreamRequest",
        "StreamSequence",
        "StubRegistry", "StubResponse",
        "TransferProgress", "Transport", "TransportEvents", "TransportRequest", "TransportResponseHead",
        "TransportTask",
        "TypedFormable", "URLQueryEncoder", "URLSessionTransport",
        "UploadDataFormable", "UploadFileFormable", "UploadFormable", "UploadMultipartFormable",
        "UploadRequest", "UploadStreamFormable", "Warnable",
        // Apple's own are `URLSessionWebSocketTask` (Foundation) and `NWProtocolWebSocket` (Network).
        "WebSocket", "WebSocketClose", "WebSocketCloseCode", "WebSocketConnection", "WebSocketFormable",
        "WebSocketInbound", "WebSocketMessage", "WebSocketReconnection", "WebSocketSequence",
        "WebSocketState",
        "WebSocketTransport", "WebSocketUpdate",
    ]

    /// Top-level names of Apple frameworks an app file commonly imports next to Formwork, kept by
    /// hand from Apple's documentation: the ones a networking or UI-state library could plausibly
    /// pick. UIKit's and AppKit's own types carry a `UI` / `NS` prefix, checked by rule below.
    static let appleNames: [String: Set<String>] = [
        "SwiftUI": [
            "Alert", "Alignment", "Angle", "Animation", "App", "Axis", "Binding", "Button", "Canvas", "Color",
            "ContentUnavailableView", "Divider", "Edge", "EdgeInsets", "EmptyView", "Environment",
            "EnvironmentObject", "Font", "Form", "Gauge", "Gesture", "Grid", "Group", "Image", "Label",
            "Layout", "Link", "List", "Menu", "Namespace", "NavigationLink", "NavigationStack", "Path",
            "Picker", "ProgressView", "RedactionReasons", "RefreshAction", "Scene", "ScrollView", "Section",
            "Shape", "Slider", "Spacer", "State", "StateObject", "Stepper", "Table", "Text", "TextField",
            "Toggle", "Transaction", "UnitPoint", "View", "ViewModifier", "Window", "WindowGroup",
        ],
        "UIKit": [
            "UIView", "UIEdgeInsets", "UIColor", "UIProgressView", "UIRefreshControl",
            "NSDirectionalEdgeInsets",
        ],
        "AppKit": ["NSView", "NSEdgeInsets", "NSColor", "NSProgressIndicator", "NSAlert"],
        "Combine": [
            "AnyCancellable", "AnyPublisher", "AnySubscriber", "Cancellable", "CombineIdentifier",
            "ConnectablePublisher", "CurrentValueSubject", "Deferred", "Empty", "Fail", "Future",
            "ImmediateScheduler", "Just", "ObservableObject", "PassthroughSubject", "Published", "Publisher",
            "Publishers", "Record", "Scheduler", "Subject", "Subscriber", "Subscribers", "Subscription",
            "TopLevelDecoder", "TopLevelEncoder",
        ],
        "Observation": [
            "Observable", "ObservationIgnored", "ObservationRegistrar", "ObservationTracked", "Observations",
        ],
        "Foundation": [
            "AttributedString", "Bundle", "Calendar", "CharacterSet", "Data", "Date", "DateComponents",
            "Decimal", "Expression", "FileHandle", "FileManager", "FormatStyle", "HTTPCookie", "Host",
            "HTTPURLResponse", "IndexPath", "IndexSet", "InputStream", "JSONDecoder", "JSONEncoder", "Locale",
            "Measurement", "Notification", "NotificationCenter", "Operation", "OperationQueue",
            "OutputStream",
            "Pipe", "Port", "Predicate", "Process", "ProcessInfo", "Progress", "PropertyListDecoder",
            "PropertyListEncoder", "RunLoop", "Scanner", "SortDescriptor", "Stream", "Thread", "TimeZone",
            "Timer", "Unit", "URL", "URLCache", "URLComponents", "URLCredential", "URLError", "URLRequest",
            "URLResponse", "URLSession", "URLSessionTask", "UUID",
        ],
    ]

    /// The public top-level names declared in `Sources/Formwork`.
    static func declaredNames() throws -> Set<String> {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Formwork")
        let kinds: Set<Substring> = [
            "struct", "class", "enum", "protocol", "typealias", "actor", "func", "var", "let",
        ]
        var names = Set<String>()
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                // At column 0: attributes, then `public`/`open`, modifiers, the kind and the name.
                guard let first = line.first, first != " ", first != "\t" else { continue }
                let words = line.split(separator: " ").drop { $0.hasPrefix("@") }
                guard let access = words.first, access == "public" || access == "open" else { continue }
                let rest = words.dropFirst().drop { !kinds.contains($0) }
                guard rest.count >= 2 else { continue }
                let name = rest[rest.index(after: rest.startIndex)].prefix {
                    $0.isLetter || $0.isNumber || $0 == "_"
                }
                names.insert(String(name))
            }
        }
        return names
    }

    @Test("Every public top-level name of Formwork has been checked against the Apple frameworks")
    func everyNameWasChecked() throws {
        let declared = try Self.declaredNames()
        #expect(declared.count > 50)  // the sources were found and read
        #expect(
            declared.subtracting(Self.checkedNames).sorted() == [],
            "new public names: check them, then list them")
    }

    @Test(
        "No public top-level name of Formwork is also one of theirs", arguments: Self.appleNames.keys.sorted()
    )
    func noClash(framework: String) throws {
        let declared = try Self.declaredNames()
        #expect(declared.intersection(Self.appleNames[framework] ?? []).sorted() == [])
    }

    @Test("No public top-level name uses UIKit's or AppKit's prefixes")
    func noPlatformPrefixes() throws {
        let prefixed = try Self.declaredNames().filter { name in
            let scalars = Array(name.unicodeScalars)
            guard scalars.count > 2, name.hasPrefix("UI") || name.hasPrefix("NS") else { return false }
            return CharacterSet.uppercaseLetters.contains(scalars[2])
        }
        #expect(prefixed.sorted() == [])
    }

    @Test("The UIKit stand-ins are nested in Headless, where their UIKit-like names are safe")
    @MainActor
    func standInsAreNested() {
        let names = [
            String(reflecting: Headless.View.self), String(reflecting: Headless.Alert.self),
            String(reflecting: Headless.ProgressView.self), String(reflecting: Headless.Color.self),
            String(reflecting: Headless.ScrollView.self),
        ]
        #expect(names.allSatisfy { $0.hasPrefix("Formwork.Headless.") })
    }
}
