import Formwork
import Foundation

// Waiting for a request the way a screen does: through a handler chained after its hooks, which
// runs after the hooks' own end (masks removed, button enabled again) for the attempt.

extension DataResponding {
    /// Waits for the request's (single) attempt and returns its response. Chained after the hooks,
    /// so their `end()` has run by then.
    @MainActor
    func finished() async -> DataResponse<Data?> {
        await withCheckedContinuation { continuation in
            response { continuation.resume(returning: $0) }
        }
    }
}

extension DownloadRequest {
    /// Waits for the download's (single) attempt and returns its response, after its hooks.
    @MainActor
    func finished() async -> DownloadResponse {
        await withCheckedContinuation { continuation in
            response { continuation.resume(returning: $0) }
        }
    }
}
