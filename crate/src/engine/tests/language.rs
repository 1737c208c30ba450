//! Notes in many languages through the engine: each note (or long section) stemmed in its
//! language, recorded in the catalog, found by an inflected query; Thai split into words.

use super::*;

fn note(path: &str, text: &str) -> NoteInput {
    NoteInput { path: path.into(), bytes: text.as_bytes().to_vec(), mtime: 1000.0, ctime: None }
}

fn engine_with(notes: &[NoteInput]) -> Engine {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    e.update(UpdateBatch { upserts: notes.to_vec(), ..Default::default() }).unwrap();
    e
}

fn top(e: &mut Engine, q: &str) -> Vec<String> {
    let req = SearchRequest { query: q.into(), k: Some(5), mode: Some(SearchMode::Lexical), ..Default::default() };
    e.search(&req).unwrap().hits.into_iter().map(|h| h.path).collect()
}

const RU: &str = "# Синхронизация\n\nСинхронизация заметок между вашими устройствами выполняется автоматически, \
    когда включена соответствующая настройка. Все изменения сохраняются в хранилище.\n";
const DE: &str = "---\nlang: de\n---\n# Notizen\n\nDie Synchronisierungen laufen im Hintergrund.\n";
const TH: &str = "# สำรองข้อมูลไฟล์ Obsidian ของคุณ\n\nคัดลอกห้องนิรภัยไปยังไดรฟ์ภายนอกทุกสัปดาห์\n";
const EN: &str = "# Backups\n\nCopy the vault folder to an external drive every week, and keep two copies.\n";

fn vault() -> Vec<NoteInput> {
    vec![note("ru/Синхронизация.md", RU), note("de/Notizen.md", DE), note("th/สำรอง.md", TH), note("en/Backups.md", EN)]
}

#[test]
fn notes_record_their_language_detected_or_pinned() {
    let e = engine_with(&vault());
    let lang = |p: &str| e.catalog.get(p).unwrap().lang.clone();
    assert_eq!(lang("ru/Синхронизация.md"), "ru");
    assert_eq!(lang("de/Notizen.md"), "de", "pinned by the frontmatter");
    assert_eq!(lang("th/สำรอง.md"), "th");
    assert_eq!(lang("en/Backups.md"), "en");
    let langs: Vec<&str> = e.catalog.languages().iter().map(|(l, _)| crate::language::code(*l)).collect();
    assert_eq!(langs.len(), 4, "{langs:?}");
}

#[test]
fn inflected_queries_find_their_notes_in_each_language() {
    let mut e = engine_with(&vault());
    // Genitive of "синхронизация": Russian stemming on both sides.
    assert_eq!(top(&mut e, "синхронизации").first().map(String::as_str), Some("ru/Синхронизация.md"));
    // Singular of the pinned note's plural, stemmed in German although the text is short.
    assert_eq!(top(&mut e, "Synchronisierung").first().map(String::as_str), Some("de/Notizen.md"));
    // The Thai query of the note's title, written without spaces.
    assert_eq!(top(&mut e, "สำรองข้อมูล").first().map(String::as_str), Some("th/สำรอง.md"));
    assert_eq!(top(&mut e, "copies").first().map(String::as_str), Some("en/Backups.md"));
}

#[test]
fn snippets_highlight_inflected_forms_in_the_notes_language() {
    let notes = vault();
    let mut e = engine_with(&notes);
    let q = "синхронизации";
    let req = SearchRequest { query: q.into(), k: Some(1), mode: Some(SearchMode::Lexical), ..Default::default() };
    let hits = e.search(&req).unwrap().hits;
    let s = snippets(&e, q, &hits, &notes).remove(0).expect("a snippet");
    assert!(!s.highlights.is_empty(), "{s:?}");
}

#[test]
fn a_note_in_two_languages_stems_each_long_section_in_its_own() {
    let en = "Searching notes across devices is fast when the index is kept on each device. ".repeat(60);
    let de = "Die Synchronisierungen der Notizen zwischen den Geräten laufen automatisch im Hintergrund. ".repeat(60);
    let text = format!("# Notes\n\n## English\n\n{en}\n\n## Deutsch\n\n{de}\n");
    let mut e = engine_with(&[note("Mixed.md", &text), note("Other.md", "# Other\n\nNothing related here at all.\n")]);
    let req =
        |q: &str| SearchRequest { query: q.into(), k: Some(5), mode: Some(SearchMode::Lexical), ..Default::default() };
    // "Synchronisierung" only matches the German section if it was stemmed as German.
    let hits = e.search(&req("Synchronisierung")).unwrap().hits;
    assert_eq!(hits.first().map(|h| h.heading_path.as_str()), Some("Notes > Deutsch"), "{hits:?}");
    // "searches" only matches "Searching" in the English section if it was stemmed as English.
    let hits = e.search(&req("searches")).unwrap().hits;
    assert_eq!(hits.first().map(|h| h.heading_path.as_str()), Some("Notes > English"), "{hits:?}");
    // The catalog records both, the note's own first.
    assert_eq!(e.catalog.get("Mixed.md").unwrap().lang, "en de");
}

#[test]
fn ukrainian_words_are_stemmed_by_their_prefix() {
    // No Snowball stemmer: words are cut to their first characters, so inflections meet.
    let uk = "---\nlang: uk\n---\n# Нотатки\n\nСинхронізація нотаток між вашими пристроями виконується автоматично.\n\nEdited: zqeditbma, Plugins.\n";
    let mut e = engine_with(&[note("uk/Нотатки.md", uk), note("en/Backups.md", EN)]);
    assert_eq!(e.catalog.get("uk/Нотатки.md").unwrap().lang, "uk");
    assert_eq!(top(&mut e, "синхронізації пристроїв"), vec!["uk/Нотатки.md".to_string()]);
    assert_eq!(top(&mut e, "\"синхронізація нотаток\""), vec!["uk/Нотатки.md".to_string()], "a phrase");
    // Short words are left whole: "між" is not a prefix of anything else.
    let cut = |w: &str| crate::analyzer::terms(w, crate::language::Stem::PREFIX);
    assert_eq!(cut("синхронізації"), vec!["синхро"]);
    assert_eq!(cut("між"), vec!["між"]);
    // A Latin word is not cut (a query in Latin script is analysed in English): it is stemmed in
    // English, as an English query stems it.
    assert_eq!(cut("zqeditbma plugins"), vec!["zqeditbma", "plugin"]);
    assert_eq!(top(&mut e, "zqeditbma"), vec!["uk/Нотатки.md".to_string()]);
    assert_eq!(top(&mut e, "plugin"), vec!["uk/Нотатки.md".to_string()]);
}

#[test]
fn quoted_words_match_their_exact_form_only() {
    let run = note("Running.md", "# Mornings\n\nThe team keeps running every morning before work.\n");
    let runs = note("Runs.md", "# Weather\n\nShe runs every day when it rains.\n");
    let mut e = engine_with(&[run, runs, note("ru/Синхронизация.md", RU), note("en/Backups.md", EN)]);
    let mut both = top(&mut e, "running");
    both.sort();
    assert_eq!(both, vec!["Running.md".to_string(), "Runs.md".to_string()], "unquoted: stemmed");
    assert_eq!(top(&mut e, "\"running\""), vec!["Running.md".to_string()]);
    assert_eq!(top(&mut e, "\"runs\""), vec!["Runs.md".to_string()]);
    // A phrase: its words next to each other, each in its exact form.
    assert_eq!(top(&mut e, "\"running every\""), vec!["Running.md".to_string()]);
    assert_eq!(top(&mut e, "\"runs every\""), vec!["Runs.md".to_string()]);
    assert_eq!(top(&mut e, "\"running every day\""), Vec::<String>::new());
    // With the rest of a query, and operators on phrases.
    assert_eq!(top(&mut e, "\"runs\" backups").len(), 2);
    assert_eq!(top(&mut e, "running -\"runs\""), vec!["Running.md".to_string()]);
    assert_eq!(top(&mut e, "+\"running\" weather"), vec!["Running.md".to_string()]);
    // Other languages: the Russian note says "Синхронизация", not the genitive.
    assert!(top(&mut e, "синхронизации").contains(&"ru/Синхронизация.md".to_string()));
    assert_eq!(top(&mut e, "\"синхронизации\""), Vec::<String>::new());
    assert_eq!(top(&mut e, "\"Синхронизация заметок\""), vec!["ru/Синхронизация.md".to_string()]);
}

#[test]
fn elisions_in_a_query_are_words_not_quotes() {
    let fr = "---\nlang: fr\n---\n# Apparence\n\nChoisissez les thèmes et les couleurs de votre coffre.\n";
    let uk = "---\nlang: uk\n---\n# Псевдоніми\n\nДруге ім'я нотатки: посилання знаходять її за ним.\n";
    let mut e = engine_with(&[note("fr/Apparence.md", fr), note("uk/Псевдоніми.md", uk), note("en/Backups.md", EN)]);
    // The query parser reads '…' as a phrase: "l'apparence" found nothing, and the longer
    // query found the note by "de" alone.
    assert_eq!(top(&mut e, "l'apparence"), vec!["fr/Apparence.md".to_string()]);
    let req = SearchRequest {
        query: "changer l'apparence de l'appli".into(),
        k: Some(5),
        mode: Some(SearchMode::Lexical),
        ..Default::default()
    };
    let hits = e.search(&req).unwrap().hits;
    assert_eq!(hits.first().map(|h| h.path.as_str()), Some("fr/Apparence.md"));
    assert!(hits[0].score > 5.0, "found by its title: {}", hits[0].explain);
    assert_eq!(top(&mut e, "друге ім'я").first().map(String::as_str), Some("uk/Псевдоніми.md"));
    assert_eq!(top(&mut e, "\"ім'я нотатки\"").first().map(String::as_str), Some("uk/Псевдоніми.md"));
}

#[test]
fn pasted_links_and_labels_are_text_not_syntax() {
    let mut e = engine_with(&vault());
    // `[a b]` was a range (every note matched), `{…}` and `word:` (no such field) nothing.
    assert_eq!(top(&mut e, "[[Backups]]"), vec!["en/Backups.md".to_string()]);
    assert_eq!(top(&mut e, "{external drive}"), vec!["en/Backups.md".to_string()]);
    assert_eq!(top(&mut e, "Note: external drive"), vec!["en/Backups.md".to_string()]);
    // A field stays a field.
    assert_eq!(top(&mut e, "title:backups"), vec!["en/Backups.md".to_string()]);
    assert!(top(&mut e, "title:drive").is_empty());
}

#[test]
fn hits_and_reads_carry_the_notes_languages() {
    let notes = vault();
    let mut e = engine_with(&notes);
    let req = SearchRequest {
        query: "Synchronisierung".into(),
        k: Some(1),
        mode: Some(SearchMode::Lexical),
        ..Default::default()
    };
    let hit = e.search(&req).unwrap().hits.remove(0);
    assert_eq!((hit.path.as_str(), hit.lang.as_str()), ("de/Notizen.md", "de"));
    let r = read(&e, &notes, ReadRequest { path: "ru/Синхронизация.md".into(), ..Default::default() }).unwrap();
    assert_eq!(r.lang, "ru");
    // In JSON only when known.
    let json = serde_json::to_value(&hit).unwrap();
    assert_eq!(json["lang"], "de");
    let mut unknown = hit.clone();
    unknown.lang.clear();
    assert!(serde_json::to_value(&unknown).unwrap().get("lang").is_none());
}
