import Foundation
import Testing

@testable import Formwork

@Suite("A form is read once, into a Sendable snapshot")
struct FormSnapshotTests {
    /// A non-Sendable form that counts how often each member is read.
    final class CountingForm: RequestFormable, UploadFormable {
        var reads: [String: Int] = [:]
        var city = "shanghai"

        private func read<T>(_ name: String, _ value: T) -> T {
            reads[name, default: 0] += 1
            return value
        }

        var url: String { read("url", "https://api.example.com/weather") }
        var method: HTTPMethod { read("method", .post) }
        var headers: HTTPHeaders { read("headers", ["X-City": city]) }
        var idleTimeout: TimeInterval? { read("idleTimeout", 12) }
        var parameters: Parameters { read("parameters", ["city": city]) }
        var encoding: ParameterEncoding { read("encoding", .json) }
    }

    @Test("every member is read exactly once, and later changes to the form do not reach it")
    func readsOnce() {
        let form = CountingForm()
        let snapshot = FormSnapshot(form)
        #expect(
            form.reads == [
                "url": 1, "method": 1, "headers": 1, "idleTimeout": 1, "parameters": 1, "encoding": 1,
            ])
        form.city = "paris"
        #expect(snapshot.url == "https://api.example.com/weather")
        #expect(snapshot.method == .post)
        #expect(snapshot.headers["X-City"] == "shanghai")
        #expect(snapshot.idleTimeout == 12)
        #expect(snapshot.parameters["city"] as? String == "shanghai")
    }

    @Test("a form without parameters (an upload) is read without them")
    func base() {
        let form = CountingForm()
        let snapshot = FormSnapshot(base: form)
        #expect(form.reads["parameters"] == nil)
        #expect(form.reads["encoding"] == nil)
        #expect(snapshot.parameters.isEmpty)
        #expect(form.reads["url"] == 1)
    }

    @Test("the request built from a snapshot is the one built from the form")
    func sameRequest() throws {
        let form = CountingForm()
        let configuration = Session.Configuration()
        let fromForm = try URLRequestBuilder.request(for: form, configuration: configuration)
        let fromSnapshot = try URLRequestBuilder.request(
            for: FormSnapshot(form), configuration: configuration)
        #expect(fromSnapshot == fromForm)
        #expect(fromSnapshot.httpBody == fromForm.httpBody)
    }
}
