/**
 * The recall benchmark's data set, generated (seeded, so every run asks the same): sessions
 * in which an agent states facts about places, later follow-up questions that refer to them
 * by pronoun, and facts that were contradicted on a branch the user rolled back.
 */

export interface FactSpec {
  entity: string;
  attribute: 'price' | 'place' | 'time';
  text: string;
  /** Stated and then undone: the text that must not be recalled. */
  abandonedText?: string;
}

export interface SessionSpec {
  sessionId: string;
  facts: FactSpec[];
  /** Small talk between the facts. */
  filler: string[];
}

export interface QuestionSpec {
  sessionId: string;
  entity: string;
  attribute: FactSpec['attribute'];
  /** The follow-up as asked (uses a pronoun). */
  question: string;
  /** The fact message it asks for. */
  expectedText: string;
  abandonedText?: string;
}

const KINDS = ['Hotel', 'Restaurant', 'Museum', 'Gallery', 'Café', 'Theatre', 'Hostel', 'Market'];
const NAMES = [
  'Avenida',
  'Bairro',
  'Castelo',
  'Douro',
  'Estrela',
  'Flor',
  'Graça',
  'Horta',
  'Ilha',
  'Jardim',
  'Lago',
  'Mar',
  'Norte',
  'Oliva',
  'Ponte',
  'Quinta',
  'Ribeira',
  'Sol',
  'Tejo',
  'Ulmo',
  'Vale',
  'Xisto',
  'Zimbro',
  'Aurora',
  'Brisa',
  'Cedro',
  'Duna',
  'Encosta',
  'Farol',
  'Granito',
];
const STREETS = ['Rua Augusta', 'Rua do Ouro', 'Avenida da Liberdade', 'Rua Garrett', 'Praça do Comércio', 'Rua da Prata', 'Largo do Carmo', 'Rua das Flores'];
const FILLER = [
  'Can you also keep an eye on the weather for the weekend?',
  'I will ask my sister what she prefers.',
  'We should leave some time for a walk by the river.',
  'Remind me to pack an umbrella.',
  'My phone battery is almost empty.',
  'Let us not overplan the first day.',
  'I still need to exchange some money.',
  'The kids want to see the trams.',
];
const QUESTIONS: Record<FactSpec['attribute'], string[]> = {
  price: ['How much does it cost?', 'What was its price again?', 'And how expensive is it?'],
  place: ['Where is it?', 'What was its address?', 'On which street is it?'],
  time: ['When does it open?', 'What time can we go there?', 'What are its opening hours?'],
};

/** A generated conversation set and how its user talks (the English one below, the Chinese one in mem-dataset-zh.ts). */
export interface RecallDataset {
  sessions: SessionSpec[];
  questions: QuestionSpec[];
  /** The user's question that the agent answers with a fact. */
  ask(fact: FactSpec): string;
  /** The user coming back to a place before asking a follow-up about it by pronoun. */
  returnTo(entity: string): string;
}

export function englishDataset(sessions: number, entitiesPerSession: number): RecallDataset {
  return {
    ...generateDataset(sessions, entitiesPerSession),
    ask: (fact) => `Tell me about the ${fact.attribute} of ${fact.entity}.`,
    returnTo: (entity) => `Let's get back to ${entity} for a moment.`,
  };
}

export function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 16807) % 2147483647) - 1) / 2147483646;
}

export function generateDataset(sessions: number, entitiesPerSession: number, seed = 42): { sessions: SessionSpec[]; questions: QuestionSpec[] } {
  const rnd = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)]!;
  const specs: SessionSpec[] = [];
  const questions: QuestionSpec[] = [];
  let entityCounter = 0;
  for (let s = 0; s < sessions; s++) {
    const facts: FactSpec[] = [];
    for (let e = 0; e < entitiesPerSession; e++) {
      // Every place has its own name (a kind may repeat): "Hotel Avenida", "Museum Bairro", ...
      const entity = `${KINDS[(entityCounter * 3) % KINDS.length]} ${NAMES[entityCounter % NAMES.length]}${entityCounter >= NAMES.length ? ` ${Math.floor(entityCounter / NAMES.length) + 1}` : ''}`;
      entityCounter++;
      const price = 20 + Math.floor(rnd() * 180);
      const oldPrice = price + 15 + Math.floor(rnd() * 40);
      const hour = 8 + Math.floor(rnd() * 4);
      const contradicted = rnd() < 0.4;
      facts.push(
        {
          entity,
          attribute: 'price',
          text: `${entity} costs ${price} euros per person.`,
          ...(contradicted ? { abandonedText: `${entity} costs ${oldPrice} euros per person.` } : {}),
        },
        { entity, attribute: 'place', text: `${entity} is at ${pick(STREETS)} ${1 + Math.floor(rnd() * 200)}.` },
        { entity, attribute: 'time', text: `${entity} opens at ${hour}:${rnd() < 0.5 ? '00' : '30'} in the morning.` },
      );
    }
    specs.push({ sessionId: `bench-${s}`, facts, filler: FILLER });
    for (let e = 0; e < entitiesPerSession; e++) {
      const fact = facts[e * 3 + Math.floor(rnd() * 3)]!;
      questions.push({
        sessionId: `bench-${s}`,
        entity: fact.entity,
        attribute: fact.attribute,
        question: pick(QUESTIONS[fact.attribute]),
        expectedText: fact.text,
        ...(fact.abandonedText ? { abandonedText: fact.abandonedText } : {}),
      });
    }
  }
  return { sessions: specs, questions };
}
