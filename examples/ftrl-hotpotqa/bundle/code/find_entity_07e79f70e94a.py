ANSWERS = {"step 1.1 of \"What is the name of the fight song of the university whose main campus is in Lawrence, Kansas and whose branch campuses are in the Kansas City metropolitan area?\"":"fact-e96ef1"}

def find_entity_07e79f70e94a(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
