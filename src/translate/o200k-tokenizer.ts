/**
 * The one encoding the gateway counts with (o200k_base), behind a module of its own: the build bundles this file
 * with the encoding's data (scripts/bundle-tokenizer.mjs), so the installed package carries those 2.6 MB rather
 * than all of gpt-tokenizer's 30 MB (four encodings, in three copies: src, cjs, esm).
 */
export { countTokens } from "gpt-tokenizer/encoding/o200k_base";
