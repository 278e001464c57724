import type { EmbeddingModel, EmbeddingModelInfo, EmbeddingSpace, EmbedOptions } from '../embedding-model';
import { detectLanguage, type TextLanguage } from './detect-language';

export interface LanguageModel {
  language: TextLanguage;
  model: EmbeddingModel;
  /** Its id and output size, known without loading it (the catalogue's): a model not needed yet is never loaded. */
  id: string;
  dimensions: number;
}

/**
 * Embeds each text with the model of its language (detectLanguage): the first model takes every
 * text no other model is for. A vector lies in the direct sum of the models' spaces: the text's
 * model's block at its offset, every other block zero. Two texts of different languages then
 * have a cosine of 0, and an index opened for this model (LanguageSpacesIndex) stores and
 * searches each block in that model's own tables. A model loads on the first text of its
 * language: an English-only tenant never loads (or downloads) the Chinese one.
 */
export class LanguageRoutedEmbeddingModel implements EmbeddingModel {
  private readonly spaces: (EmbeddingSpace & { model: EmbeddingModel })[];
  readonly dimensions: number;

  constructor(models: readonly LanguageModel[]) {
    if (models.length === 0) throw new Error('A language-routed embedding model needs at least one model.');
    let offset = 0;
    this.spaces = models.map(({ language, model, id, dimensions }) => {
      const space = { id, dimensions, offset, language, model };
      offset += dimensions;
      return space;
    });
    this.dimensions = offset;
  }

  /** Loads the default model only; the others' sizes are the catalogue's, checked when they first embed. */
  async info(): Promise<EmbeddingModelInfo> {
    const first = await this.spaces[0]!.model.info();
    if (first.dimensions !== this.spaces[0]!.dimensions)
      throw new Error(`The embedding model ${first.id} gives ${first.dimensions} dimensions, not the ${this.spaces[0]!.dimensions} its catalogue entry says.`);
    return {
      id: this.spaces.map((s) => s.id).join('+'),
      dimensions: this.dimensions,
      spaces: this.spaces.map(({ id, dimensions, offset, language }) => ({ id, dimensions, offset, language })),
    };
  }

  /** The space a text is routed to. */
  spaceOf(text: string): EmbeddingSpace {
    const language = detectLanguage(text);
    return this.spaces.find((s) => s.language === language) ?? this.spaces[0]!;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const vectors = texts.map(() => new Float32Array(this.dimensions));
    const bySpace = new Map<(typeof this.spaces)[number], number[]>();
    const { languageOf, contexts, ...modelOptions } = options;
    texts.forEach((text, i) => {
      const space = this.spaces.find((s) => s.id === this.spaceOf(languageOf?.[i] ?? text).id)!;
      bySpace.set(space, [...(bySpace.get(space) ?? []), i]);
    });
    for (const [space, indices] of bySpace) {
      // A text's previous turn is embedded in the text's own space, whatever its language.
      const embedded = await space.model.embed(
        indices.map((i) => texts[i]!),
        contexts ? { ...modelOptions, contexts: indices.map((i) => contexts[i]) } : modelOptions,
      );
      embedded.forEach((vector, j) => {
        if (vector.length !== space.dimensions)
          throw new Error(`The embedding model ${space.id} gave ${vector.length} dimensions, not the ${space.dimensions} its catalogue entry says.`);
        vectors[indices[j]!]!.set(vector, space.offset);
      });
    }
    return vectors;
  }

  async close(): Promise<void> {
    for (const space of this.spaces) await space.model.close();
  }
}
