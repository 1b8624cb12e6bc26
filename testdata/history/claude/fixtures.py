# Writes the hand-made Claude Code transcripts of this directory (run: python3 fixtures.py here).
# Each fixture is a minimal, readable transcript of one edge case; the decoder tests in
# harness/claude/decode_test.go assert their projections. Rows mimic Claude Code 2.1.332.
import json
S="11111111-1111-4111-8111-111111111111"
T=["2026-03-01T10:00:%02d.000Z"%i for i in range(60)]
def row(typ,uuid,parent,t=0,sid=S,**kw):
    d={"parentUuid":parent,"isSidechain":False,"type":typ,"uuid":uuid,"timestamp":T[t%60],"sessionId":sid,"cwd":"/work/proj","version":"2.1.332"}
    d.update(kw); return d
def user(uuid,parent,text,t=0,**kw): return row("user",uuid,parent,t,message={"role":"user","content":text},**kw)
def asst(uuid,parent,blocks,t=0,**kw): return row("assistant",uuid,parent,t,message={"id":"msg_"+uuid,"type":"message","role":"assistant","model":"claude-opus-5-5","content":blocks,"usage":{"input_tokens":10,"output_tokens":5}},**kw)
def text(s): return {"type":"text","text":s}
def think(s): return {"type":"thinking","thinking":s,"signature":"sig"}
def tuse(i,name,inp): return {"type":"tool_use","id":i,"name":name,"input":inp}
def tres(i,c,err=None):
    d={"tool_use_id":i,"type":"tool_result","content":c}
    if err is not None: d["is_error"]=err
    return d
def att(uuid,parent,kind,rendered=None,t=0,role="user"):
    kw={"attachment":{"type":kind,"content":"RAW-PAYLOAD-NEVER-SHOWN"}}
    if rendered is not None: kw["rendered"]=[{"content":r} for r in rendered]; kw["renderedRole"]=role
    return row("attachment",uuid,parent,t,**kw)
def boundary(uuid,logical,t=0,pres=None,**kw):
    md={"trigger":"manual","preTokens":1000}
    if pres: md["preservedSegment"]=dict(zip(["headUuid","anchorUuid","tailUuid"],pres))
    return row("system",uuid,None,t,subtype="compact_boundary",content="Conversation compacted",logicalParentUuid=logical,compactMetadata=md,level="info",isMeta=False)
def meta(typ,**kw):
    d={"type":typ,"sessionId":S}; d.update(kw); return d
def write(name,rows,tail=None):
    with open(name,"w") as f:
        for r in rows:
            f.write(r if isinstance(r,str) else json.dumps(r,separators=(",",":")))
            f.write("\n")
        if tail is not None: f.write(tail)

# basic: every row kind, a pending call, unknown metadata, empty envelopes
write("basic.jsonl",[
 meta("queue-operation",operation="enqueue",timestamp=T[0],content="list files"),
 att("a0",None,"date",["<system-reminder>Today is 2026-03-01</system-reminder>"],0),
 user("u1","a0","Please list the files and say HELLO",1,promptId="p1"),
 asst("m1","u1",[think("secret reasoning never shown")],2),
 asst("m2","m1",[text("Listing the files now.")],3),
 asst("m3","m2",[tuse("toolu_1","Bash",{"command":"ls -la"})],4),
 user("r1","m3",[tres("toolu_1","a.txt\nb.txt")],5,sourceToolAssistantUUID="m3",toolUseResult={"stdout":"a.txt\nb.txt"}),
 meta("future-metadata-type",uuid="f1",payload={"x":1}),
 att("a1","r1","prompt_snapshot",None,6),
 asst("m4","a1",[text("Two files: a.txt and b.txt.")],7),
 user("u2","m4","now read a.txt",8),
 asst("m5","u2",[tuse("toolu_2","Read",{"file_path":"/work/proj/a.txt"}),tuse("toolu_3","Read",{"file_path":"/work/proj/b.txt"})],9),
 user("r2","m5",[tres("toolu_2",[text("contents of a"),{"type":"image","source":{"data":"AAAA"}}])],10),
 meta("last-prompt",lastPrompt="now read a.txt",leafUuid="r2"),
])

# compact: window 0, native boundary with a preserved segment, window 1
write("compact.jsonl",[
 user("u1",None,"first window question",0),
 asst("m1","u1",[text("first window answer")],1),
 user("u2","m1","second question",2),
 asst("m2","u2",[text("kept verbatim answer")],3),
 boundary("b1","m2",4,pres=("m2","s1","m2")),
 user("s1","b1","This session is being continued from a previous conversation. Summary: stuff",5,isCompactSummary=True,isVisibleInTranscriptOnly=True),
 user("u3","s1","question after compaction",6),
 asst("m3","u3",[text("answer in window one")],7),
 boundary("b2","m3",8),
 user("s2","b2","Summary two",9,isCompactSummary=True),
 user("u4","s2","window two question",10),
])

# boot: a hook-answered compaction whose retained boot names window 1
BOOT='<notesoup-boot window="claude:%s:%d">'
write("boot.jsonl",[
 att("c0",None,"context_sections",["notes boot "+BOOT%(S,0)],0),
 user("u1","c0","hello",1),
 asst("m1","u1",[text("hi")],2),
 boundary("b1","m1",3),
 user("k1","b1","notes boot "+BOOT%(S,1)+" then handoff",4,rowSource="hook"),
 user("u2","k1","after reset",5),
 asst("m2","u2",[text("fresh window")],6),
])

# fork: copied from the last boundary, ancestry lives in the parent file
F="22222222-2222-4222-8222-222222222222"
def fk(r): r=dict(r); r["sessionId"]=F; return r
write("fork_boot.jsonl",[fk(x) for x in [
 meta("mode",mode="normal"),
 boundary("b1","old-leaf",0),
 user("k1","b1","notes boot "+BOOT%(S,3),1,rowSource="hook"),
 user("u1","k1","in the fork",2),
 asst("m1","u1",[text("fork answer")],3),
]])
write("fork_noboot.jsonl",[fk(x) for x in [
 boundary("b1","old-leaf",0),
 user("s1","b1","Summary",1,isCompactSummary=True),
 user("u1","s1","in the fork",2),
 asst("m1","u1",[text("fork answer")],3),
]])

# gap: a missing ancestor in the middle; the suffix is an unknown segment
write("gap.jsonl",[
 user("u1",None,"root prompt",0),
 asst("m1","u1",[text("root answer")],1),
 user("u2","missing-1","orphaned prompt",2),
 asst("m2","u2",[text("orphaned answer")],3),
 boundary("b1","m2",4),
 user("s1","b1","Summary",5,isCompactSummary=True),
 user("u3","s1","after compaction, still unknown",6),
])

# branch: a rewind; the newest leaf wins, the abandoned sibling is hidden;
# an attachment leaf written last does not become the head
write("branch.jsonl",[
 user("u1",None,"start",0),
 asst("m1","u1",[text("first reply")],1),
 user("u2","m1","abandoned branch prompt",2),
 asst("m2","u2",[text("abandoned reply")],3),
 user("u3","m1","rewound prompt",4),
 asst("m3","u3",[text("kept reply")],5),
 att("a9","m2","date",["<system-reminder>late attachment</system-reminder>"],6),
])

# forward: rows whose parent appears later in the file (a valid forward ref)
write("forward.jsonl",[
 user("u2","m1","second prompt",2),
 user("u1",None,"first prompt",0),
 asst("m1","u1",[text("first reply")],1),
 asst("m2","u2",[text("second reply")],3),
])

# duplicates: an identical repeat allocates nothing; its latest link wins
write("duplicate.jsonl",[
 user("u1",None,"hello",0),
 asst("m1","u1",[text("reply")],1),
 user("u1",None,"hello",0),
 user("u2","m1","next",2),
])

# truncated: a write in progress at the end is tolerated
write("truncated.jsonl",[
 user("u1",None,"hello",0),
 asst("m1","u1",[text("reply")],1),
],tail='{"parentUuid":"m1","isSidechain":false,"type":"user","uuid":"u2","mess')

# refusals
write("bad_malformed.jsonl",[user("u1",None,"hello",0),'{"type":"user", broken',asst("m1","u1",[text("x")],1)])
write("bad_conflict.jsonl",[user("u1",None,"hello",0),asst("m1","u1",[text("x")],1),user("u1",None,"HELLO CHANGED",0)])
write("bad_sidechain.jsonl",[user("u1",None,"hello",0),dict(asst("m1","u1",[text("x")],1),isSidechain=True)])
write("bad_session.jsonl",[user("u1",None,"hello",0),asst("m1","u1",[text("x")],1,sid="99999999-9999-4999-8999-999999999999")])
write("bad_cycle.jsonl",[user("u1","m2","hello",0),asst("m1","u1",[text("x")],1),asst("m2","m1",[text("y")],2),user("u3","m2","leaf",3)])
write("bad_schema.jsonl",[user("u1",None,"hello",0),asst("m1","u1",[{"type":"tool_use","name":"Bash","input":{}}],1)])
write("bad_message.jsonl",[user("u1",None,"hello",0),row("assistant","m1","u1",1,message="just a string")])
write("bad_notype.jsonl",[user("u1",None,"hello",0),'{"uuid":"x"}'])

# parallel: the real engine's shape for parallel calls (recorded sessions):
# one row per block, results as children of their call rows, the next turn
# continuing from one result only; a prompt_snapshot attachment written last.
def asstm(uuid,parent,msg,blocks,t=0):
    r=asst(uuid,parent,blocks,t); r["message"]["id"]=msg; return r
write("parallel.jsonl",[
 user("u1",None,"do two things",0),
 asstm("m1","u1","msg_A",[text("Two at once.")],1),
 asstm("m2","m1","msg_A",[tuse("t1","Bash",{"command":"ls"})],2),
 asstm("m3","m2","msg_A",[tuse("t2","Read",{"file_path":"n.txt"})],3),
 user("r2","m3",[tres("t2","note text")],4,sourceToolAssistantUUID="m3"),
 user("r1","m2",[tres("t1","n.txt")],5,sourceToolAssistantUUID="m2"),
 asstm("m4","r1","msg_B",[text("Both done.")],6),
 att("a1","m4","prompt_snapshot",None,7),
])
write("bad_rendered.jsonl",[user("u1",None,"hello",0),dict(att("a1","u1","date",None,1),rendered=[{"content":42}])])
write("bad_result.jsonl",[user("u1",None,"hello",0),asst("m1","u1",[tuse("t1","Bash",{})],1),user("r1","m1",[{"type":"tool_result","tool_use_id":"t1","content":{"x":1}}],2)])

# fork_relinked: what --fork-session writes for a compacted session (recorded
# with 2.1.332): the preserved row is copied after the summary, so the
# boundary's logicalParentUuid names its own descendant.
write("fork_relinked.jsonl",[fk(x) for x in [
 boundary("b1","m2",0,pres=("m2","s1","m2")),
 user("s1","b1","Summary",1,isCompactSummary=True),
 asst("m2","s1",[text("kept verbatim answer")],2),
 user("u3","m2","question in the fork",3),
 asst("m3","u3",[text("fork answer")],4),
]])

# hook_rewrite: notesoup answered the compaction: no preserved segment, the
# boot names window 1, and a kept message is re-written with a new uuid and
# the same message.id; its new children are window 1, the original stays 0.
write("hook_rewrite.jsonl",[
 user("u1",None,"hello",0),
 asstm("m1","u1","msg_A",[text("original answer")],1),
 boundary("b1","m1",2),
 user("k1","b1","boot "+BOOT%(S,1)+" handoff",3,rowSource="hook"),
 asstm("m1b","k1","msg_A",[text("original answer")],4),
 user("u2","m1b","next question",5),
])
