import { describe, expect, it } from 'vitest';
import { DeterministicRewriter, rewriteQuestion, salientEntities } from './deterministic-rewriter';
import type { RecentMessage } from './query-rewriter';

const user = (content: string): RecentMessage => ({ role: 'user', content });
const agent = (content: string): RecentMessage => ({ role: 'agent', content });

describe('deterministic query rewriter', () => {
  it('resolves a possessive pronoun to the salient entity of the recent turns', () => {
    expect(rewriteQuestion('What about its price?', [user('Tell me about Hotel Avenida'), agent('Hotel Avenida is on the main square.')])).toBe(
      "What about Hotel Avenida's price?",
    );
  });

  it('resolves "it" and "they"', () => {
    expect(rewriteQuestion('When does it leave?', [user('I booked the TAP flight to Porto'), agent('Done.')])).toMatch(/When does (TAP|Porto) leave\?/);
    expect(rewriteQuestion('Are they vegetarian?', [user('We invited the Silvas to dinner')])).toBe('Are Silvas vegetarian?');
  });

  it('replays the previous question about a new subject for ellipsis ("what about X?")', () => {
    expect(rewriteQuestion('What about Porto?', [user('What is the weather in Lisbon?'), agent('Sunny, 24 degrees.')])).toBe('What is the weather in Porto?');
  });

  it('Chinese: pronouns and ellipsis', () => {
    expect(rewriteQuestion('它的价格是多少？', [user('我们订了里斯本大酒店'), agent('好的，已经订好了。')])).toMatch(/^里斯本大酒店的价格是多少？$/);
    expect(rewriteQuestion('波尔图呢？', [user('里斯本的天气怎么样？'), agent('晴天。')])).toBe('波尔图的天气怎么样？');
  });

  it('leaves a standalone question alone, and says so', async () => {
    const rewriter = new DeterministicRewriter();
    expect(await rewriter.rewrite('Which hotel did we book in Lisbon?', [user('Tell me about Porto')])).toEqual({
      query: 'Which hotel did we book in Lisbon?',
      rewriter: 'none',
    });
    expect(await rewriter.rewrite('What about its price?', [])).toEqual({ query: 'What about its price?', rewriter: 'none' });
    expect((await rewriter.rewrite('What about its price?', [user('Tell me about Hotel Avenida')])).rewriter).toBe('deterministic');
  });

  it('takes a preposition opening a question for no name ("On which street is it?")', () => {
    const recent = [user("Let's get back to Café Estrela for a moment.")];
    expect(rewriteQuestion('On which street is it?', recent)).toBe('On which street is Café Estrela?');
    expect(rewriteQuestion('In which room is it?', recent)).toBe('In which room is Café Estrela?');
  });

  it('leaves a pronoun alone when the question names what it stands for', () => {
    const recent = [user('[8 May, 2023] Ana: I went to the pottery class yesterday'), agent('[8 May, 2023] Rita: That is great, Ana!')];
    expect(rewriteQuestion('What activities has Rita done with her family?', recent)).toBe('What activities has Rita done with her family?');
    expect(rewriteQuestion('Did Ana enjoy it?', recent)).toBe('Did Ana enjoy it?');
  });

  it('never puts a date where a pronoun was', () => {
    const recent = [user('On 20 October we flew out'), agent('Monday, October 20: flight TP1353 at 9:40 am')];
    expect(rewriteQuestion('When does it land?', recent)).toBe('When does TP1353 land?');
    expect(rewriteQuestion('它几点起飞？', [user('10月20日 星期一'), agent('好的')])).toBe('它几点起飞？');
    expect(salientEntities(recent)).not.toContain('October');
  });

  it('resolves a Chinese pronoun followed by a word the history used ("它的地址"): only a name before the pronoun can be what it stands for', () => {
    const history = [user('请介绍一下东方酒店的地址。'), agent('东方酒店在人民路21号。'), user('再说说东方酒店吧。')];
    expect(rewriteQuestion('它的地址是什么？', history)).toBe('东方酒店的地址是什么？');
    expect(rewriteQuestion('它几点开门？', [...history, agent('东方酒店早上8点开门。')])).toBe('东方酒店几点开门？');
    expect(rewriteQuestion('李明和她的家人去了哪里？', [user('王芳昨天来了'), user('李明也来了')])).toBe('李明和她的家人去了哪里？');
  });

  it('weighs newer and repeated mentions more', () => {
    expect(salientEntities([user('We went to Madrid'), user('Now we are in Lisbon'), agent('Lisbon is lovely')])[0]).toBe('Lisbon');
  });
});
