@testable import Formwork

extension MessageCatalog {
    /// The English words without codes appended, so tests compare plain sentences in every build.
    static var englishWithoutCodes: MessageCatalog {
        var catalog = MessageCatalog.english
        catalog.showsCodes = false
        return catalog
    }
}
