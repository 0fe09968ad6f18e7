//! The part of SentencePiece's `sentencepiece_model.proto` (proto2) that
//! encoding needs, declared for `prost`; every other field is skipped.

/// `ModelProto`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ModelProto {
    #[prost(message, repeated, tag = "1")]
    pub pieces: Vec<Piece>,
    #[prost(message, optional, tag = "2")]
    pub trainer_spec: Option<TrainerSpec>,
    #[prost(message, optional, tag = "3")]
    pub normalizer_spec: Option<NormalizerSpec>,
}

/// `ModelProto.SentencePiece`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Piece {
    #[prost(string, optional, tag = "1")]
    pub piece: Option<String>,
    #[prost(float, optional, tag = "2")]
    pub score: Option<f32>,
    /// `Type`: NORMAL = 1 (the default), UNKNOWN = 2, CONTROL = 3,
    /// USER_DEFINED = 4, UNUSED = 5, BYTE = 6.
    #[prost(int32, optional, tag = "3")]
    pub kind: Option<i32>,
}

/// `TrainerSpec`: the encoding-time fields only.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct TrainerSpec {
    /// UNIGRAM = 1 (the default), BPE = 2, WORD = 3, CHAR = 4.
    #[prost(int32, optional, tag = "3")]
    pub model_type: Option<i32>,
    #[prost(bool, optional, tag = "24")]
    pub treat_whitespace_as_suffix: Option<bool>,
    #[prost(bool, optional, tag = "35")]
    pub byte_fallback: Option<bool>,
}

/// `NormalizerSpec`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct NormalizerSpec {
    #[prost(bytes = "vec", optional, tag = "2")]
    pub precompiled_charsmap: Option<Vec<u8>>,
    #[prost(bool, optional, tag = "3")]
    pub add_dummy_prefix: Option<bool>,
    #[prost(bool, optional, tag = "4")]
    pub remove_extra_whitespaces: Option<bool>,
    #[prost(bool, optional, tag = "5")]
    pub escape_whitespaces: Option<bool>,
}
