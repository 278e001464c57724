/**
 * The recall benchmark's Chinese set (the seeds are Chinese), generated like the English one
 * (seeded: every run asks the same): sessions in which an agent states facts about places,
 * follow-up questions that refer to them by pronoun (它 / 那里), and prices that were
 * contradicted on a branch the user rolled back.
 */
import { random, type FactSpec, type QuestionSpec, type RecallDataset, type SessionSpec } from './mem-dataset';

/** The catalogued Chinese embedding model (REWIND_EMBEDDING_MODEL=bge-small-zh-v15-q selects it in the service). */
export const CHINESE_MODEL = 'bge-small-zh-v15-q';

const KINDS = ['酒店', '餐厅', '博物馆', '美术馆', '咖啡馆', '剧院', '青年旅舍', '市场'];
const NAMES = [
  '金鼎',
  '银河',
  '翠竹',
  '明珠',
  '丽景',
  '锦江',
  '华庭',
  '紫荆',
  '东方',
  '长城',
  '海棠',
  '梅园',
  '兰亭',
  '松鹤',
  '凤凰',
  '龙门',
  '白云',
  '青山',
  '碧水',
  '春晖',
  '秋月',
  '星光',
  '朝阳',
  '和平',
  '福寿',
  '玉泉',
  '天坛',
  '西湖',
  '黄鹤',
  '石林',
];
const STREETS = ['南京路', '淮海路', '长安街', '中山路', '人民路', '解放路', '建国路', '和平路'];
const FILLER = [
  '周末的天气也帮我留意一下。',
  '我会问问我姐姐喜欢什么。',
  '我们应该留点时间去河边散步。',
  '提醒我带把伞。',
  '我的手机快没电了。',
  '第一天不要安排得太满。',
  '我还需要换一些钱。',
  '孩子们想去看有轨电车。',
];
const ATTRIBUTE_WORDS: Record<FactSpec['attribute'], string> = { price: '价格', place: '地址', time: '营业时间' };
const QUESTIONS: Record<FactSpec['attribute'], string[]> = {
  price: ['它多少钱？', '它的价格是多少来着？', '它贵不贵？'],
  place: ['它在哪里？', '它的地址是什么？', '它在哪条街上？'],
  time: ['它几点开门？', '我们几点可以去那里？', '它的营业时间是几点？'],
};

export function chineseDataset(sessions: number, entitiesPerSession: number, seed = 42): RecallDataset {
  const rnd = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)]!;
  const specs: SessionSpec[] = [];
  const questions: QuestionSpec[] = [];
  let entityCounter = 0;
  for (let s = 0; s < sessions; s++) {
    const facts: FactSpec[] = [];
    for (let e = 0; e < entitiesPerSession; e++) {
      // Every place has its own name (30 names × 8 kinds, no digits: digits would cut the name in two for the rewriter).
      const entity = `${NAMES[entityCounter % NAMES.length]}${KINDS[(Math.floor(entityCounter / NAMES.length) + entityCounter * 3) % KINDS.length]}`;
      entityCounter++;
      const price = 20 + Math.floor(rnd() * 180);
      const oldPrice = price + 15 + Math.floor(rnd() * 40);
      const hour = 8 + Math.floor(rnd() * 4);
      const contradicted = rnd() < 0.4;
      facts.push(
        {
          entity,
          attribute: 'price',
          text: `${entity}每人${price}元。`,
          ...(contradicted ? { abandonedText: `${entity}每人${oldPrice}元。` } : {}),
        },
        { entity, attribute: 'place', text: `${entity}在${pick(STREETS)}${1 + Math.floor(rnd() * 200)}号。` },
        { entity, attribute: 'time', text: `${entity}早上${hour}点${rnd() < 0.5 ? '' : '半'}开门。` },
      );
    }
    specs.push({ sessionId: `bench-zh-${s}`, facts, filler: FILLER });
    for (let e = 0; e < entitiesPerSession; e++) {
      const fact = facts[e * 3 + Math.floor(rnd() * 3)]!;
      questions.push({
        sessionId: `bench-zh-${s}`,
        entity: fact.entity,
        attribute: fact.attribute,
        question: pick(QUESTIONS[fact.attribute]),
        expectedText: fact.text,
        ...(fact.abandonedText ? { abandonedText: fact.abandonedText } : {}),
      });
    }
  }
  return {
    sessions: specs,
    questions,
    ask: (fact) => `请介绍一下${fact.entity}的${ATTRIBUTE_WORDS[fact.attribute]}。`,
    returnTo: (entity) => `再说说${entity}吧。`,
  };
}
