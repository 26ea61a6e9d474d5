#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    /// libcurl's own re-send of a request whose body corelibs cannot rewind (a `Data` or file
    /// body): the task ends at once as connection lost instead of waiting for an answer that never
    /// comes (see `URLSessionTransportDelegate`'s `needNewBodyStream`).
    enum BodyResend {
        /// What the task ends with: the connection closed before any response, and the request
        /// was not sent again.
        static var lost: URLError {
            URLError(
                .networkConnectionLost,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "The connection closed before any response; the request was not sent again"
                ])
        }

        /// Cancels `task` off libcurl's queue, where corelibs asks for the body (its cancel waits
        /// for that queue, which would trap there). Serialized with the link's answers; the task
        /// stays routed, so that its end reports the link's failure.
        static func cancel(_ task: URLSessionTask, link: URLSessionTransportTask) {
            queue.async {
                DeliveryQueue.countingWaitForNetwork { link.cancel { task.cancel() } }
            }
        }

        private static let queue = DispatchQueue(label: "org.formwork.urlsession.resend")
    }
#endif
