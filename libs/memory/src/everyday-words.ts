/**
 * Everyday words a question and its answer name the same thing with: a question asks about
 * "family" or "children", the turn that answers says "fam", "kids", "my son", "hubby". Each key is a
 * question's word (lower case, singular), each value the words a conversation may use for it
 * instead: abbreviations, members of the group, kinds of the thing. English only; curated, small,
 * and data only (recall-expansion.ts reads it).
 */
export const EVERYDAY_WORDS: Readonly<Record<string, readonly string[]>> = {
  family: ['fam', 'kids', 'children', 'son', 'daughter', 'husband', 'wife', 'hubby', 'mom', 'dad', 'parents', 'brother', 'sister'],
  child: ['kids', 'kid', 'son', 'daughter', 'baby'],
  kid: ['children', 'son', 'daughter', 'baby'],
  parent: ['mom', 'dad', 'mother', 'father'],
  spouse: ['husband', 'wife', 'hubby', 'partner'],
  partner: ['husband', 'wife', 'hubby', 'boyfriend', 'girlfriend'],
  sibling: ['brother', 'sister'],
  pet: ['dog', 'cat', 'puppy', 'kitten', 'pup', 'turtle', 'fish', 'hamster'],
  animal: ['dog', 'cat', 'puppy', 'kitten', 'horse', 'bird'],
  music: ['concert', 'band', 'song', 'singer', 'album', 'guitar', 'piano', 'violin', 'gig'],
  musical: ['concert', 'band', 'song', 'singer', 'album', 'gig'],
  artist: ['band', 'singer', 'concert', 'painter'],
  instrument: ['guitar', 'piano', 'violin', 'clarinet', 'drums', 'flute', 'saxophone', 'cello', 'ukulele'],
  art: ['painting', 'drawing', 'sculpture', 'pottery', 'sketch', 'canvas'],
  sport: ['basketball', 'soccer', 'football', 'tennis', 'baseball', 'hockey', 'volleyball', 'swimming', 'surfing'],
  exercise: ['gym', 'workout', 'running', 'yoga', 'hiking', 'jogging', 'cycling'],
  fitness: ['gym', 'workout', 'running', 'yoga', 'jogging'],
  outdoor: ['hiking', 'camping', 'hike', 'beach', 'nature', 'park'],
  hobby: ['painting', 'reading', 'hiking', 'cooking', 'baking', 'gardening', 'photography'],
  book: ['novel', 'read', 'reading', 'author'],
  movie: ['film', 'cinema', 'watched'],
  food: ['cook', 'cooking', 'recipe', 'dish', 'bake', 'baking', 'meal'],
  travel: ['trip', 'vacation', 'visited', 'flew'],
  trip: ['vacation', 'visited', 'travel', 'flew'],
  friend: ['buddy', 'pal', 'bestie'],
  job: ['work', 'career', 'boss', 'office'],
  car: ['vehicle', 'drive', 'ride'],
  destress: ['relax', 'unwind', 'calm', 'therapy', 'stress'],
  relax: ['unwind', 'calm', 'chill', 'de-stress'],
};
